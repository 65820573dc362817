import ArgumentParser
import Foundation
import OrderfileSupport
import OrderfileSymbolization

struct SymbolizeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "symbolize",
    abstract: "Name the function, and optionally the source line, at each address read from stdin.",
    discussion: """
      Reads one address per line from stdin: hexadecimal, with or without 0x,
      an ELF virtual address as nm prints it (not a load address). Prints one
      line per address, in input order:

        <address> TAB <function> [TAB <file>:<line>]

      with '??' for what is not known. Names are demangled (C++ and Swift)
      unless --no-demangle. The binary's function symbols are indexed once;
      --lines also reads its DWARF line tables. Blank lines are skipped; any
      other line that is not an address is an error (exit 65).

      Examples:
        nm --defined-only app | awk '$2 ~ /^[tT]$/ {print $1}' | orderfile symbolize --binary app
        echo 0x1140 | orderfile symbolize --binary app --lines --no-demangle
      """
  )

  @Option(help: ArgumentHelp("The ELF executable or shared library the addresses belong to.", valueName: "path"))
  var binary: String

  @Flag(help: "Also print the source file and line of each address, from DWARF.")
  var lines = false

  @Flag(name: .customLong("no-demangle"), help: "Print linkage (mangled) names.")
  var noDemangle = false

  func run() throws {
    try reportingErrors {
      let symbolizer = try ELFSymbolizer(path: binary)
      let input = FileHandle.standardInput.readDataToEndOfFile()
      var output = OutputBuffer()
      var names: [UInt64: String] = [:]
      var lineNumber = 0
      var failure: String?
      input.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
        let bytes = raw.bindMemory(to: UInt8.self)
        var start = 0
        while start < bytes.count && failure == nil {
          var end = start
          while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
          lineNumber += 1
          let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
          start = end + 1
          guard let parsed = AddressParser.parse(line) else {
            failure = "line \(lineNumber): '\(String(decoding: line, as: UTF8.self))' is not a hexadecimal address"
            break
          }
          guard let address = parsed else { continue }  // blank line
          output.append("0x" + String(address, radix: 16))
          output.append("\t")
          if let function = symbolizer.function(containing: address) {
            if noDemangle {
              output.append(function.name)
            } else if let known = names[function.address] {
              output.append(known)
            } else {
              let name = Demangler.demangle(function.name)
              names[function.address] = name
              output.append(name)
            }
          } else {
            output.append("??")
          }
          if lines {
            output.append("\t")
            output.append(symbolizer.sourceLocation(for: address)?.description ?? "??")
          }
          output.append("\n")
        }
      }
      output.flush()
      if let failure {
        Diagnostics.write("orderfile: error: " + failure)
        throw ExitCode(ExitStatus.dataError.rawValue)
      }
    }
  }
}

/// Parses one input line of `symbolize`.
enum AddressParser {
  /// `.some(nil)` for a blank line, `.some(address)` for a hexadecimal address with an optional
  /// `0x`/`0X` prefix and surrounding spaces, tabs or a carriage return, nil for anything else.
  static func parse(_ line: UnsafeBufferPointer<UInt8>) -> UInt64?? {
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }
    var low = 0
    var high = line.count
    while low < high && isSpace(line[low]) { low += 1 }
    while high > low && isSpace(line[high - 1]) { high -= 1 }
    if low == high { return .some(nil) }
    if high - low > 2 && line[low] == UInt8(ascii: "0") && (line[low + 1] | 0x20) == UInt8(ascii: "x") {
      low += 2
    }
    guard high - low <= 16 else { return nil }
    var value: UInt64 = 0
    for index in low..<high {
      let byte = line[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: return nil
      }
      value = value << 4 | UInt64(digit)
    }
    return .some(value)
  }
}

/// Collects stdout in large writes: one write per line would dominate the run time.
private struct OutputBuffer {
  private var bytes: [UInt8] = []
  private let limit = 1 << 16

  init() { bytes.reserveCapacity(limit + 4096) }

  mutating func append(_ text: String) {
    bytes.append(contentsOf: text.utf8)
    if bytes.count >= limit { flush() }
  }

  mutating func flush() {
    guard !bytes.isEmpty else { return }
    FileHandle.standardOutput.write(Data(bytes))
    bytes.removeAll(keepingCapacity: true)
  }
}
