import Foundation
import OrderfileSymbolization
import Testing
import _OrderfileTestSupport

@Suite("Bad input throws errors that name the file")
struct BadInputTests {
  /// The error both entry points throw for `path`; they must agree.
  private func error(for path: String) throws -> SymbolizationError {
    let fromSymbolizer = try #require(throws: SymbolizationError.self) {
      _ = try ELFSymbolizer(path: path)
    }
    let fromLocator = try #require(throws: SymbolizationError.self) {
      _ = try BinaryLocator.buildID(ofFileAt: path)
    }
    #expect(fromSymbolizer == fromLocator)
    let message = fromSymbolizer.localizedDescription
    #expect(message.contains(path))
    #expect(message.first?.isUppercase == false)
    return fromSymbolizer
  }

  private func truncatedCopy(of path: String, to destination: String, keeping count: Int) throws {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    try bytes.prefix(count).write(to: URL(fileURLWithPath: destination))
  }

  private var sampleBinary: String {
    get throws {
      try FixtureBinaries.path(for: try #require(FixtureVariant.all.first))
    }
  }

  @Test("a missing file")
  func missing() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("absent")
    #expect(try error(for: path) == .cannotRead(path: path, reason: "no such file or directory"))
  }

  @Test("a directory")
  func directory() throws {
    let directory = try TemporaryDirectory()
    #expect(
      try error(for: directory.path) == .cannotRead(path: directory.path, reason: "is a directory"))
  }

  @Test("a text file and an empty file are not ELF")
  func notELF() throws {
    let directory = try TemporaryDirectory()
    let text = directory.file("script.sh")
    try "#!/bin/sh\necho hi\n".write(toFile: text, atomically: true, encoding: .utf8)
    #expect(try error(for: text) == .notELF(path: text, leadingBytes: "0x23 0x21 0x2f 0x62"))
    let empty = directory.file("empty")
    try Data().write(to: URL(fileURLWithPath: empty))
    #expect(try error(for: empty) == .notELF(path: empty, leadingBytes: ""))
  }

  @Test("a truncated ELF file", arguments: [3, 20, 64, 1000, 4096])
  func truncated(keeping count: Int) throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("truncated")
    try truncatedCopy(of: try sampleBinary, to: path, keeping: count)
    let thrown = try error(for: path)
    if count < 4 {
      #expect(thrown == .notELF(path: path, leadingBytes: "0x7f 0x45 0x4c"))
    } else {
      guard case .malformedELF = thrown else {
        Issue.record("expected malformedELF, got \(thrown)")
        return
      }
    }
  }

  @Test("half of every fixture is rejected, never a crash", arguments: FixtureVariant.all)
  func halves(variant: FixtureVariant) throws {
    let binary = try FixtureBinaries.path(for: variant)
    let size = try #require(try FileManager.default.attributesOfItem(atPath: binary)[.size] as? Int)
    let directory = try TemporaryDirectory()
    let path = directory.file("half")
    try truncatedCopy(of: binary, to: path, keeping: size / 2)
    guard case .malformedELF = try error(for: path) else {
      Issue.record("expected malformedELF")
      return
    }
  }

  @Test("section headers placed past the end of the file")
  func sectionHeadersOutside() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("bad-shoff")
    var bytes = try Data(contentsOf: URL(fileURLWithPath: try sampleBinary))
    // e_shoff of ELF64 is the 8 bytes at offset 0x28.
    for offset in 0x28..<0x30 { bytes[offset] = 0x7f }
    try bytes.write(to: URL(fileURLWithPath: path))
    guard case .malformedELF = try error(for: path) else {
      Issue.record("expected malformedELF")
      return
    }
  }

  @Test("an object file is not a binary")
  func objectFile() throws {
    let directory = try TemporaryDirectory()
    let object = directory.file("located.o")
    try runChecked(Toolchain.clang, ["-c", FixtureBinaries.sources + "/located.c", "-o", object])
    let thrown = try #require(throws: SymbolizationError.self) {
      _ = try ELFSymbolizer(path: object)
    }
    #expect(thrown == .unsupportedELFType(path: object, type: "relocatable object"))
    #expect(thrown.localizedDescription.contains(object))
    // Reading the build-id alone is refused the same way.
    #expect(throws: SymbolizationError.self) { _ = try BinaryLocator.buildID(ofFileAt: object) }
  }
}
