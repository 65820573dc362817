import Foundation
import OrderfileSupport

/// Why a binary could not be read, symbolized or found.
public enum SymbolizationError: LocalizedError, ExitStatusProviding, Equatable, Sendable {
  /// The file could not be opened or read: its path and the system's reason (from `errno`),
  /// or "is a directory" / "not a regular file".
  case cannotRead(path: String, reason: String)
  /// The file is not ELF: its path and its first bytes (up to 4) in hex, empty for an empty file.
  case notELF(path: String, leadingBytes: String)
  /// The file starts like ELF but is cut short or inconsistent: its path and what is wrong.
  case malformedELF(path: String, reason: String)
  /// The file is ELF but not an executable or a shared library (for example an object file):
  /// its path and its `e_type`.
  case unsupportedELFType(path: String, type: String)
  /// libdw or libelf refused the file: its path, the call and the library's message.
  case library(path: String, call: String, message: String)
  /// No file with the wanted build-id: the recorded path, the build-id (when known) and every
  /// place that was looked at.
  case binaryNotFound(path: String, buildID: BuildID?, searched: [String])
  /// A file exists at the recorded path but it is another build (and nothing else matched):
  /// its path, the build-id recorded for it, and the build-id it has now (nil for none).
  case buildIDMismatch(path: String, expected: BuildID, found: BuildID?)
  /// The binary has no function symbols at all: no `.symtab`, no separate debug file found
  /// for it, and no defined function in `.dynsym` (a stripped executable). Its path and
  /// build-id, which names the debug file that would do.
  case noSymbolTable(path: String, buildID: BuildID?)
  /// A file given as a link map is not one lld wrote: its path and what is wrong.
  case notALinkMap(path: String, reason: String)
  /// A link map describes another link of the binary: the map, the binary, and a symbol
  /// whose address differs.
  case staleLinkMap(path: String, binary: String, symbol: String, mapAddress: UInt64, binaryAddress: UInt64)
  /// A line of an address list (`symbolize`'s input) that is not an address: its 1-based
  /// number and its text.
  case notAnAddress(line: Int, text: String)

  public var errorDescription: String? {
    switch self {
    case .cannotRead(let path, let reason):
      return "cannot read '\(path)': \(reason)"
    case .notELF(let path, let leadingBytes):
      if leadingBytes.isEmpty { return "'\(path)' is not an ELF file: it is empty" }
      return "'\(path)' is not an ELF file (it starts with \(leadingBytes))"
    case .malformedELF(let path, let reason):
      return "'\(path)' is a malformed ELF file: \(reason)"
    case .unsupportedELFType(let path, let type):
      return "'\(path)' is an ELF \(type), not an executable or a shared library"
    case .library(let path, let call, let message):
      return "'\(path)': \(call) failed: \(message.lowercased())"
    case .binaryNotFound(let path, let buildID, let searched):
      let wanted = buildID.map { " with build-id '\($0)'" } ?? ""
      let places =
        searched.isEmpty
        ? "nowhere to look" : "looked in " + searched.map { "'\($0)'" }.joined(separator: ", ")
      return "cannot find the binary '\(path)'\(wanted): \(places)"
    case .buildIDMismatch(let path, let expected, let found):
      let actual = found.map { "build-id '\($0)'" } ?? "no build-id"
      return "'\(path)' has \(actual) but build-id '\(expected)' was recorded for it, "
        + "and no file in the search directories has that build-id"
    case .noSymbolTable(let path, let buildID):
      let debugFile =
        buildID.map { id in
          let hex = "\(id)"
          return
            "install its separate debug file where its build-id finds it (/usr/lib/debug/.build-id/\(hex.prefix(2))/\(hex.dropFirst(2)).debug, or in a --debug-dir)"
        } ?? "link it with -Wl,--build-id and install its separate debug file under /usr/lib/debug/.build-id/"
      return
        "'\(path)' has no symbol table (it was stripped), so no function in it can be named: keep its .symtab (link without -s and do not strip it, or strip with --strip-debug at most), or \(debugFile)"
    case .notALinkMap(let path, let reason):
      return "'\(path)' is not an lld link map: \(reason)"
    case .staleLinkMap(let path, let binary, let symbol, let mapAddress, let binaryAddress):
      return
        "'\(path)' describes another link of '\(binary)': it places \(symbol) at 0x\(String(mapAddress, radix: 16)), the binary has it at 0x\(String(binaryAddress, radix: 16)); link again with -Wl,-Map=\(path)"
    case .notAnAddress(let line, let text):
      return "line \(line): '\(text)' is not a hexadecimal address"
    }
  }

  /// A binary that is not there or cannot be read is a missing input; one that is there
  /// but wrong (not ELF, another build) is bad data.
  public var exitStatus: ExitStatus {
    switch self {
    case .cannotRead, .binaryNotFound: return .noInput
    case .notELF, .malformedELF, .unsupportedELFType, .library, .buildIDMismatch, .noSymbolTable, .notAnAddress,
      .notALinkMap, .staleLinkMap:
      return .dataError
    }
  }
}
