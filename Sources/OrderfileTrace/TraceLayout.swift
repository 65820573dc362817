/// Byte offsets of the trace format, mirroring `orderfile_trace_format.h`.
///
/// The C header is the definition; these constants are checked against real
/// traces written by the runtime in the runtime tests.
enum TraceLayout {
  static let magic: UInt64 = 0x4543_4152_5444_524F  // "ORDTRACE"
  static let versionMajor: UInt16 = 1
  static let versionMinor: UInt16 = 1
  static let headerSize = 4096
  static let moduleSize = 4096
  static let recordSize = 32
  static let pathCapacity = 3984
  static let buildIDCapacity = 64

  enum Header {
    static let magic = 0
    static let versionMajor = 8
    static let versionMinor = 10
    static let headerSize = 12
    static let moduleEntrySize = 16
    static let recordSize = 20
    static let moduleCapacity = 24
    static let pid = 28
    static let recordCapacity = 32
    static let moduleTableOffset = 40
    static let recordsOffset = 48
    static let processStart = 56
    static let processStartResolution = 64
    static let traceStart = 72
    static let parentPID = 80
    static let forkRecordIndex = 88
    static let timeLimit = 96
    static let checksum = 104
    static let recordCount = 112
    static let droppedCount = 120
    static let moduleCount = 128
    static let flags = 132
    static let windowReason = 136
    static let windowEnd = 144
    static let end = 152
    static let minorFaults = 160
    static let majorFaults = 168
    // Version 1.1: marks and full-mode event buffers.
    static let marksOffset = 256
    static let eventsOffset = 264
    static let eventCapacity = 272
    static let markCapacity = 280
    static let eventThreadCapacity = 284
    static let extensionChecksum = 288
    static let markCount = 296
    static let eventThreadCount = 300
    static let unbufferedEvents = 304
  }

  static let markSize = 64
  static let markNameCapacity = 40
  static let threadBufferHeaderSize = 64
  static let eventSize = 16
  /// Bit 63 of an event's pc word: the event is an exit.
  static let exitBit: UInt64 = 1 << 63

  enum MarkField {
    static let name = 0
    static let time = 40
    static let tid = 48
    static let nameLength = 52
    static let check = 63
  }

  enum ThreadBuffer {
    static let tid = 0
    static let count = 8
    static let dropped = 16
  }

  enum Module {
    static let loadBase = 0
    static let textStart = 8
    static let textEnd = 16
    static let textRSS = 24
    static let flags = 32
    static let pathLength = 36
    static let buildIDLength = 38
    static let buildID = 40
    static let path = 104
    static let checksum = 4092
  }

  enum Record {
    static let address = 0
    static let time = 8
    static let tid = 24
    static let module = 28
    static let kind = 30
    static let check = 31
  }

  enum Flag {
    static let closed: UInt32 = 0x1
    static let windowClosed: UInt32 = 0x2
    static let forked: UInt32 = 0x4
    static let metrics: UInt32 = 0x8
  }

  enum ModuleFlag {
    static let mainExecutable: UInt32 = 0x1
    static let pathTruncated: UInt32 = 0x2
    static let textRSS: UInt32 = 0x4
  }

  /// FNV-1a over `bytes`, never 0: the C `oft_checksum`.
  static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var hash: UInt32 = 2_166_136_261
    for byte in bytes {
      hash ^= UInt32(byte)
      hash = hash &* 16_777_619
    }
    return hash == 0 ? 1 : hash
  }

  /// 1 + (sum of all bytes but the last) mod 255: the C `oft_record_check` and `oft_mark_check`.
  static func recordCheck(_ record: UnsafeRawBufferPointer) -> UInt8 {
    var sum: UInt32 = 0
    for i in 0..<(record.count - 1) { sum &+= UInt32(record[i]) }
    return UInt8(1 + sum % 255)
  }
}
