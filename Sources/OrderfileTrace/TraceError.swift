import Foundation
import OrderfileSupport

/// Why a trace file was refused.
///
/// Every message names the file, the byte offset of the problem and what is
/// wrong with it, so a user can tell a truncated copy from a corrupted disk
/// from a trace written by a newer runtime.
public enum TraceError: LocalizedError, Equatable, Sendable {
  /// The file could not be read at all.
  case unreadable(path: String, message: String)
  /// The file ends before a structure that the header says is there.
  case truncated(path: String, offset: UInt64, expected: String)
  /// The file does not start with the trace magic number.
  case badMagic(path: String, found: UInt64)
  /// The trace was written by a runtime whose format major version this reader does not know.
  case unsupportedVersion(path: String, major: UInt16, minor: UInt16)
  /// A header field holds an impossible value, or the header checksum fails.
  case corruptHeader(path: String, offset: UInt64, reason: String)
  /// A module entry is incomplete or fails its checksum.
  case corruptModule(path: String, index: Int, offset: UInt64, reason: String)
  /// A record fails its check byte or refers to something that does not exist.
  case corruptRecord(path: String, index: Int, offset: UInt64, reason: String)
  /// A mark fails its check byte or has an impossible name length.
  case corruptMark(path: String, index: Int, offset: UInt64, reason: String)
  /// A full-mode thread buffer holds an impossible count or event.
  case corruptEvents(path: String, buffer: Int, offset: UInt64, reason: String)
  /// The file ended at `offset` while it was read, though it was longer when it was
  /// opened: another process truncated or rewrote it meanwhile.
  case shrank(path: String, offset: UInt64)

  public var errorDescription: String? {
    switch self {
    case .unreadable(let path, let message):
      return "\(path): cannot read trace: \(message)"
    case .truncated(let path, let offset, let expected):
      return "\(path): truncated at offset \(hex(offset)): expected \(expected)"
    case .badMagic(let path, let found):
      return
        "\(path): offset \(hex(TraceLayout.Header.magic)): not an orderfile trace (magic \(hex(found)), expected \(hex(TraceLayout.magic)))"
    case .unsupportedVersion(let path, let major, let minor):
      return
        "\(path): offset \(hex(TraceLayout.Header.versionMajor)): trace format version \(major).\(minor) is not supported (this tool reads \(TraceLayout.versionMajor).x)"
    case .corruptHeader(let path, let offset, let reason):
      return "\(path): corrupt header at offset \(hex(offset)): \(reason)"
    case .corruptModule(let path, let index, let offset, let reason):
      return "\(path): corrupt module entry \(index) at offset \(hex(offset)): \(reason)"
    case .corruptRecord(let path, let index, let offset, let reason):
      return "\(path): corrupt record \(index) at offset \(hex(offset)): \(reason)"
    case .corruptMark(let path, let index, let offset, let reason):
      return "\(path): corrupt mark \(index) at offset \(hex(offset)): \(reason)"
    case .corruptEvents(let path, let buffer, let offset, let reason):
      return "\(path): corrupt event buffer \(buffer) at offset \(hex(offset)): \(reason)"
    case .shrank(let path, let offset):
      return
        "\(path): the file shrank to \(hex(offset)) bytes while it was read: another process is truncating or rewriting it; read it again once that process is done"
    }
  }
}

func hex<T: BinaryInteger>(_ value: T) -> String { "0x" + String(value, radix: 16) }

extension TraceError: ExitStatusProviding {
  /// A trace that cannot be read is a missing input; any other refusal is bad data.
  public var exitStatus: ExitStatus {
    if case .unreadable = self { return .noInput }
    return .dataError
  }
}
