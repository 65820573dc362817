import Foundation
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

/// Not a timed test: prints how long lookups take on a binary with many functions.
///
/// Enabled by `ORDERFILE_SYMBOLIZATION_SPEED`: a number builds a shared library with that
/// many generated C functions; a path measures that binary instead.
///
///     ORDERFILE_SYMBOLIZATION_SPEED=20000 swift test --filter LookupSpeedCheck
@Suite("Lookup speed check")
struct LookupSpeedCheck {
  static let setting = ProcessInfo.processInfo.environment["ORDERFILE_SYMBOLIZATION_SPEED"]

  @Test(
    "100k lookups",
    .enabled(if: setting != nil, "a measurement on request: set ORDERFILE_SYMBOLIZATION_SPEED to run it"))
  func measure() throws {
    let setting = try #require(Self.setting)
    let directory = try TemporaryDirectory()
    let binary: String
    if let count = Int(setting) {
      binary = try generateLibrary(functions: count, in: directory)
    } else {
      binary = setting
    }

    let clock = ContinuousClock()
    var symbolizer: ELFSymbolizer?
    let opening = try clock.measure { symbolizer = try ELFSymbolizer(path: binary) }
    let loaded = try #require(symbolizer)
    let functions = loaded.functions.filter { $0.size > 0 }
    try #require(!functions.isEmpty)

    // A fixed pseudo-random sequence of addresses inside functions.
    var state: UInt64 = 0x9e37_79b9_7f4a_7c15
    var addresses = [UInt64]()
    for _ in 0..<100_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let function = functions[Int((state >> 33) % UInt64(functions.count))]
      addresses.append(function.address + (state >> 7) % function.size)
    }
    var found = 0
    let lookups = clock.measure {
      for address in addresses where loaded.function(containing: address) != nil { found += 1 }
    }
    #expect(found == addresses.count)
    var located = 0
    let lines = clock.measure {
      for address in addresses where loaded.sourceLocation(for: address) != nil { located += 1 }
    }
    print(
      "lookup speed: \(binary): \(loaded.functions.count) functions; open+index \(opening); "
        + "100k function(containing:) \(lookups); 100k sourceLocation(for:) \(lines) "
        + "(\(located) with a line)")
  }

  private func generateLibrary(functions count: Int, in directory: TemporaryDirectory) throws
    -> String
  {
    var source = ""
    for index in 0..<count {
      source +=
        "int generated_\(index)(int x) { int y = x * \(index % 97 + 1); return y ^ \(index); }\n"
    }
    try source.write(toFile: directory.file("generated.c"), atomically: true, encoding: .utf8)
    let library = directory.file("libgenerated.so")
    try runChecked(
      Toolchain.clang,
      [
        "-O1", "-g", "-fPIC", "-shared", "-ffunction-sections", "-fuse-ld=lld", "-Wl,--build-id",
        directory.file("generated.c"), "-o", library,
      ])
    return library
  }
}
