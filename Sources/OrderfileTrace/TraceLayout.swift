import OrderfileTraceFormat

/// The trace format as the reader and the encoder see it.
///
/// Nothing here is typed by hand: sizes and constants are the macros of
/// `orderfile_trace_format.h`, and offsets are where the C importer puts the fields of
/// its structures. The header pins every offset with a static assertion, so this file
/// follows any change to the format or fails to build with it.
///
/// Offsets are computed properties, not stored ones: the optimizer folds each into a
/// constant, where a stored static is initialized lazily and checked at every access,
/// which the reader does a few times per record.
enum TraceLayout {
  static let magic: UInt64 = OFT_MAGIC
  static let versionMajor = UInt16(OFT_VERSION_MAJOR)
  static let versionMinor = UInt16(OFT_VERSION_MINOR)
  static let headerSize = Int(OFT_HEADER_SIZE)
  static let moduleSize = Int(OFT_MODULE_SIZE)
  static let recordSize = Int(OFT_RECORD_SIZE)
  static let pathCapacity = Int(OFT_MODULE_PATH_CAPACITY)
  static let buildIDCapacity = Int(OFT_BUILD_ID_CAPACITY)
  static let markSize = Int(OFT_MARK_SIZE)
  static let markNameCapacity = Int(OFT_MARK_NAME_CAPACITY)
  static let threadBufferHeaderSize = Int(OFT_THREAD_BUFFER_HEADER_SIZE)
  static let eventSize = Int(OFT_EVENT_SIZE)
  /// Bit 63 of an event's pc word: the event is an exit.
  static let exitBit: UInt64 = OFT_EVENT_EXIT
  /// The record kind of a data page's first touch (1.4); first calls are `Phase`'s kinds.
  static let dataPageKind = UInt8(OFT_KIND_DATA_PAGE)
  static let dataGranule = UInt64(OFT_DATA_GRANULE)
  /// The largest data page a record may claim: 1 GiB, more than any page size of Linux.
  static let largestDataPage: UInt64 = 1 << 30

  enum Header {
    static var magic: Int { offset(\oft_header.magic) }
    static var versionMajor: Int { offset(\oft_header.version_major) }
    static var versionMinor: Int { offset(\oft_header.version_minor) }
    static var headerSize: Int { offset(\oft_header.header_size) }
    static var moduleEntrySize: Int { offset(\oft_header.module_entry_size) }
    static var recordSize: Int { offset(\oft_header.record_size) }
    static var moduleCapacity: Int { offset(\oft_header.module_capacity) }
    static var pid: Int { offset(\oft_header.pid) }
    static var recordCapacity: Int { offset(\oft_header.record_capacity) }
    static var moduleTableOffset: Int { offset(\oft_header.module_table_offset) }
    static var recordsOffset: Int { offset(\oft_header.records_offset) }
    static var processStart: Int { offset(\oft_header.process_start_ns) }
    static var processStartResolution: Int { offset(\oft_header.process_start_resolution_ns) }
    static var traceStart: Int { offset(\oft_header.trace_start_ns) }
    static var parentPID: Int { offset(\oft_header.parent_pid) }
    static var processStartSource: Int { offset(\oft_header.process_start_source) }
    static var forkRecordIndex: Int { offset(\oft_header.fork_record_index) }
    static var timeLimit: Int { offset(\oft_header.time_limit_ns) }
    static var checksum: Int { offset(\oft_header.checksum) }
    static var recordCount: Int { offset(\oft_header.record_count) }
    static var droppedCount: Int { offset(\oft_header.dropped_count) }
    static var moduleCount: Int { offset(\oft_header.module_count) }
    static var flags: Int { offset(\oft_header.flags) }
    static var windowReason: Int { offset(\oft_header.window_reason) }
    static var windowEnd: Int { offset(\oft_header.window_end_ns) }
    static var end: Int { offset(\oft_header.end_ns) }
    static var minorFaults: Int { offset(\oft_header.minor_faults) }
    static var majorFaults: Int { offset(\oft_header.major_faults) }
    // Version 1.2: the runtime's start-up end.
    static var startupEnd: Int { offset(\oft_header.startup_end_ns) }
    // Version 1.3: the recorder's own time, out of the program's clock.
    static var recorder: Int { offset(\oft_header.recorder_ns) }
    static var arming: Int { offset(\oft_header.arming_ns) }
    // Version 1.5: the children's part of the recorder's time.
    static var children: Int { offset(\oft_header.children_ns) }
    // Version 1.1: marks and full-mode event buffers.
    static var marksOffset: Int { offset(\oft_header.marks_offset) }
    static var eventsOffset: Int { offset(\oft_header.events_offset) }
    static var eventCapacity: Int { offset(\oft_header.event_capacity) }
    static var markCapacity: Int { offset(\oft_header.mark_capacity) }
    static var eventThreadCapacity: Int { offset(\oft_header.event_thread_capacity) }
    static var extensionChecksum: Int { offset(\oft_header.extension_checksum) }
    static var markCount: Int { offset(\oft_header.mark_count) }
    static var eventThreadCount: Int { offset(\oft_header.event_thread_count) }
    static var unbufferedEvents: Int { offset(\oft_header.unbuffered_events) }
    /// Where the magic number ends, and the version after it: a shorter file is cut off
    /// inside them.
    static var magicEnd: Int { magic + MemoryLayout.size(ofValue: oft_header().magic) }
    static var versionEnd: Int { versionMinor + MemoryLayout.size(ofValue: oft_header().version_minor) }
  }

  enum MarkField {
    static var name: Int { offset(\oft_mark.name) }
    static var time: Int { offset(\oft_mark.time_ns) }
    static var tid: Int { offset(\oft_mark.tid) }
    static var nameLength: Int { offset(\oft_mark.name_length) }
    static var check: Int { offset(\oft_mark.check) }
  }

  enum ThreadBuffer {
    static var tid: Int { offset(\oft_thread_buffer.tid) }
    static var count: Int { offset(\oft_thread_buffer.count) }
    static var dropped: Int { offset(\oft_thread_buffer.dropped) }
  }

  enum Event {
    static var time: Int { offset(\oft_event.time_ns) }
    static var word: Int { offset(\oft_event.word) }
  }

  enum Module {
    static var loadBase: Int { offset(\oft_module.load_base) }
    static var textStart: Int { offset(\oft_module.text_start) }
    static var textEnd: Int { offset(\oft_module.text_end) }
    static var textRSS: Int { offset(\oft_module.text_rss_bytes) }
    static var flags: Int { offset(\oft_module.flags) }
    static var pathLength: Int { offset(\oft_module.path_length) }
    static var buildIDLength: Int { offset(\oft_module.build_id_length) }
    static var buildID: Int { offset(\oft_module.build_id) }
    static var path: Int { offset(\oft_module.path) }
    static var checksum: Int { offset(\oft_module.checksum) }
  }

  enum Record {
    static var address: Int { offset(\oft_record.address) }
    static var time: Int { offset(\oft_record.time_ns) }
    static var size: Int { offset(\oft_record.size) }
    static var tid: Int { offset(\oft_record.tid) }
    static var module: Int { offset(\oft_record.module) }
    static var kind: Int { offset(\oft_record.kind) }
    static var check: Int { offset(\oft_record.check) }
  }

  enum Flag {
    static let closed: UInt32 = OFT_FLAG_CLOSED
    static let windowClosed: UInt32 = OFT_FLAG_WINDOW_CLOSED
    static let forked: UInt32 = OFT_FLAG_FORKED
    static let metrics: UInt32 = OFT_FLAG_METRICS
    static let programClock: UInt32 = OFT_FLAG_PROGRAM_CLOCK
    static let emulated: UInt32 = OFT_FLAG_EMULATED
  }

  enum ModuleFlag {
    static let mainExecutable: UInt32 = OFT_MODULE_MAIN_EXECUTABLE
    static let pathTruncated: UInt32 = OFT_MODULE_PATH_TRUNCATED
    static let textRSS: UInt32 = OFT_MODULE_TEXT_RSS
  }

  /// Where each region of a trace with these capacities starts, and the trace's size at
  /// full capacity: the C `oft_init_header`, so the encoder places regions and the reader
  /// expects them where every writer puts them.
  struct Placement {
    var marks: UInt64
    var events: UInt64
    var records: UInt64
    var size: UInt64

    init(modules: UInt32, records: UInt64, marks: UInt32 = 0, threads: UInt32 = 0, eventsPerThread: UInt64 = 0) {
      var header = oft_header()
      size = oft_init_header(&header, modules, records, marks, threads, eventsPerThread)
      self.marks = header.marks_offset
      events = header.events_offset
      self.records = header.records_offset
    }
  }

  /// Bytes of one thread buffer holding `events` events: the C `oft_thread_buffer_size`.
  static func threadBufferSize(events: UInt64) -> UInt64 { oft_thread_buffer_size(events) }

  /// The C `oft_checksum` of `bytes`: FNV-1a, never 0.
  static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    oft_checksum(bytes.baseAddress, UInt64(bytes.count))
  }

  /// The C check byte of a record or mark (`oft_record_check`, `oft_mark_check`): over all
  /// of its bytes but the last, which is where the check byte goes.
  static func recordCheck(_ record: UnsafeRawBufferPointer) -> UInt8 {
    oft_check_byte(record.baseAddress, UInt32(record.count - 1))
  }
}

/// The offset of a stored field of an imported C structure. Only a computed property
/// has none, and C structures have none.
private func offset<Structure>(_ field: PartialKeyPath<Structure>) -> Int {
  guard let offset = MemoryLayout<Structure>.offset(of: field) else {
    preconditionFailure("\(field) is not a stored field of \(Structure.self)")
  }
  return offset
}
