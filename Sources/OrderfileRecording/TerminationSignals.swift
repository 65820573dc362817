import Foundation

/// SIGINT, SIGTERM and SIGHUP sent to `record` while the program runs: passed on to the
/// program instead of ending `record`, so that it can wait for the program and keep the
/// traces. A SIGINT or SIGHUP from the terminal (si_code SI_KERNEL) already reached the
/// whole foreground process group, the program included: it is not sent twice.
final class TerminationSignals: @unchecked Sendable {
  private static let signals = [SIGINT, SIGTERM, SIGHUP]
  nonisolated(unsafe) private static var child: pid_t = 0
  nonisolated(unsafe) private static var last: Int32 = 0
  private var previous: [Int32: sigaction] = [:]

  static func forward() -> TerminationSignals {
    let forwarding = TerminationSignals()
    child = 0
    last = 0
    for number in signals {
      var action = sigaction()
      action.__sigaction_handler.sa_sigaction = { number, info, _ in
        TerminationSignals.last = number
        let pid = TerminationSignals.child
        let fromTerminal = info.map { $0.pointee.si_code == 0x80 } ?? false  // SI_KERNEL
        if pid > 0 && !fromTerminal { kill(pid, number) }
      }
      action.sa_flags = SA_SIGINFO | SA_RESTART
      sigemptyset(&action.sa_mask)
      var old = sigaction()
      sigaction(number, &action, &old)
      forwarding.previous[number] = old
    }
    return forwarding
  }

  /// The program to pass signals to, once it runs. A signal that came between the spawn and
  /// this call (the program may run and print before the spawning thread goes on) is passed
  /// on now.
  func target(_ pid: pid_t) {
    Self.child = pid
    let early = Self.last
    if early != 0 { kill(pid, early) }
  }

  /// The signal that arrived, if one did.
  var received: Int32? { Self.last == 0 ? nil : Self.last }

  /// Puts the previous handlers back.
  func stop() {
    for (number, var action) in previous { sigaction(number, &action, nil) }
    Self.child = 0
  }
}
