import Foundation
import OrderfileSupport
import OrderfileSymbolization

/// `orderfile symbolize`: the function, and optionally the source line, at each address.
public struct SymbolizeRequest: Sendable {
  public var binary: String
  /// Print C++ and Swift names demangled.
  public var demangle: Bool
  /// Also print each address's `file:line`.
  public var sourceLines: Bool

  public init(binary: String, demangle: Bool = true, sourceLines: Bool = false) {
    self.binary = binary
    self.demangle = demangle
    self.sourceLines = sourceLines
  }

  /// Looks up the addresses of `input`, one a line (stdin's bytes).
  /// Reads the addresses from standard input, to its end.
  public func runOnStandardInput() throws -> CommandOutput {
    try run(input: [UInt8](FileHandle.standardInput.readDataToEndOfFile()))
  }

  public func run(input: [UInt8]) throws -> CommandOutput {
    let result = try AddressLookup.lookUp(input, inBinary: binary, demangle: demangle, sourceLines: sourceLines)
    var output = CommandOutput()
    output.print(result.text)
    if let bad = result.badLine { output.fail(bad.errorDescription ?? "\(bad)", status: bad.exitStatus) }
    return output
  }
}
