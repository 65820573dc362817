import OrderfileTraceFormat

/// The trace format as the reader and the encoder see it.
///
/// Nothing here is typed by hand: sizes and constants are the macros of
/// `orderfile_trace_format.h`, and offsets are where the C importer puts the fields of
/// its structures. The header pins every offset with a static assertion, so this file
/// follows any change to the format or fails to build with it.
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

  enum Header {
    static let magic = offset(\oft_header.magic)
    static let versionMajor = offset(\oft_header.version_major)
    static let versionMinor = offset(\oft_header.version_minor)
    static let headerSize = offset(\oft_header.header_size)
    static let moduleEntrySize = offset(\oft_header.module_entry_size)
    static let recordSize = offset(\oft_header.record_size)
    static let moduleCapacity = offset(\oft_header.module_capacity)
    static let pid = offset(\oft_header.pid)
    static let recordCapacity = offset(\oft_header.record_capacity)
    static let moduleTableOffset = offset(\oft_header.module_table_offset)
    static let recordsOffset = offset(\oft_header.records_offset)
    static let processStart = offset(\oft_header.process_start_ns)
    static let processStartResolution = offset(\oft_header.process_start_resolution_ns)
    static let traceStart = offset(\oft_header.trace_start_ns)
    static let parentPID = offset(\oft_header.parent_pid)
    static let forkRecordIndex = offset(\oft_header.fork_record_index)
    static let timeLimit = offset(\oft_header.time_limit_ns)
    static let checksum = offset(\oft_header.checksum)
    static let recordCount = offset(\oft_header.record_count)
    static let droppedCount = offset(\oft_header.dropped_count)
    static let moduleCount = offset(\oft_header.module_count)
    static let flags = offset(\oft_header.flags)
    static let windowReason = offset(\oft_header.window_reason)
    static let windowEnd = offset(\oft_header.window_end_ns)
    static let end = offset(\oft_header.end_ns)
    static let minorFaults = offset(\oft_header.minor_faults)
    static let majorFaults = offset(\oft_header.major_faults)
    // Version 1.1: marks and full-mode event buffers.
    static let marksOffset = offset(\oft_header.marks_offset)
    static let eventsOffset = offset(\oft_header.events_offset)
    static let eventCapacity = offset(\oft_header.event_capacity)
    static let markCapacity = offset(\oft_header.mark_capacity)
    static let eventThreadCapacity = offset(\oft_header.event_thread_capacity)
    static let extensionChecksum = offset(\oft_header.extension_checksum)
    static let markCount = offset(\oft_header.mark_count)
    static let eventThreadCount = offset(\oft_header.event_thread_count)
    static let unbufferedEvents = offset(\oft_header.unbuffered_events)
    /// Where the magic number ends, and the version after it: a shorter file is cut off
    /// inside them.
    static let magicEnd = magic + MemoryLayout.size(ofValue: oft_header().magic)
    static let versionEnd = versionMinor + MemoryLayout.size(ofValue: oft_header().version_minor)
  }

  enum MarkField {
    static let name = offset(\oft_mark.name)
    static let time = offset(\oft_mark.time_ns)
    static let tid = offset(\oft_mark.tid)
    static let nameLength = offset(\oft_mark.name_length)
    static let check = offset(\oft_mark.check)
  }

  enum ThreadBuffer {
    static let tid = offset(\oft_thread_buffer.tid)
    static let count = offset(\oft_thread_buffer.count)
    static let dropped = offset(\oft_thread_buffer.dropped)
  }

  enum Event {
    static let time = offset(\oft_event.time_ns)
    static let word = offset(\oft_event.word)
  }

  enum Module {
    static let loadBase = offset(\oft_module.load_base)
    static let textStart = offset(\oft_module.text_start)
    static let textEnd = offset(\oft_module.text_end)
    static let textRSS = offset(\oft_module.text_rss_bytes)
    static let flags = offset(\oft_module.flags)
    static let pathLength = offset(\oft_module.path_length)
    static let buildIDLength = offset(\oft_module.build_id_length)
    static let buildID = offset(\oft_module.build_id)
    static let path = offset(\oft_module.path)
    static let checksum = offset(\oft_module.checksum)
  }

  enum Record {
    static let address = offset(\oft_record.address)
    static let time = offset(\oft_record.time_ns)
    static let tid = offset(\oft_record.tid)
    static let module = offset(\oft_record.module)
    static let kind = offset(\oft_record.kind)
    static let check = offset(\oft_record.check)
  }

  enum Flag {
    static let closed: UInt32 = OFT_FLAG_CLOSED
    static let windowClosed: UInt32 = OFT_FLAG_WINDOW_CLOSED
    static let forked: UInt32 = OFT_FLAG_FORKED
    static let metrics: UInt32 = OFT_FLAG_METRICS
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
