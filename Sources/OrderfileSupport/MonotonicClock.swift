#if canImport(Glibc)
  import Glibc
#endif

/// The clock of every time in a trace: `CLOCK_MONOTONIC`, the same for every process on the machine.
public enum MonotonicClock {
  public static func nanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }
}
