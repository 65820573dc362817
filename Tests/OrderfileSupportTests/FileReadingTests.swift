import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("Reading whole files")
struct FileReadingTests {
  @Test("FIFOs and devices are refused before they are opened, naming what they are")
  func specialFiles() throws {
    let directory = try TemporaryDirectory()
    let fifo = directory.file("pipe")
    #expect(mkfifo(fifo, 0o600) == 0)
    // Nobody ever writes to the FIFO: a blocking open would never return.
    #expect(throws: SupportError.notRegularFile(path: fifo, kind: "a FIFO")) {
      try FileReading.text(atPath: fifo)
    }
    #expect(throws: SupportError.notRegularFile(path: "/dev/zero", kind: "a character device")) {
      try FileReading.bytes(atPath: "/dev/zero")
    }
    // A directory is an input that cannot be read (exit 66), as Reference.md says.
    #expect(throws: SupportError.cannotRead(path: directory.path, call: "read", message: "is a directory")) {
      try FileReading.bytes(atPath: directory.path)
    }
    #expect(
      SupportError.notRegularFile(path: "/dev/null", kind: "a character device").errorDescription
        == "/dev/null: is a character device, not a regular file")
  }

  @Test("more bytes or lines than an orderfile can plausibly hold are refused")
  func limits() throws {
    let directory = try TemporaryDirectory()
    // A sparse file one byte past the default limit: refused without reading 64 MiB.
    let big = directory.file("big.order")
    #expect(FileManager.default.createFile(atPath: big, contents: nil))
    #expect(truncate(big, off_t(FileReading.defaultByteLimit + 1)) == 0)
    #expect(throws: SupportError.tooLarge(path: big, limit: "64 MiB")) { try FileReading.text(atPath: big) }
    #expect(
      SupportError.tooLarge(path: big, limit: "64 MiB").errorDescription
        == "\(big): more than 64 MiB, the most the tool reads from one file")

    let lines = directory.file("lines.order")
    try String(repeating: "\n", count: FileReading.defaultLineLimit + 1).write(
      toFile: lines, atomically: false, encoding: .utf8)
    #expect(throws: SupportError.tooLarge(path: lines, limit: "10000000 lines")) {
      try FileReading.text(atPath: lines)
    }
    // A last line without its newline is a line too.
    let three = directory.file("three.order")
    try "a\nb\nc".write(toFile: three, atomically: false, encoding: .utf8)
    #expect(try FileReading.text(atPath: three, lineLimit: 3) == "a\nb\nc")
    #expect(throws: SupportError.tooLarge(path: three, limit: "2 lines")) {
      try FileReading.text(atPath: three, lineLimit: 2)
    }
    #expect(throws: SupportError.tooLarge(path: three, limit: "4 bytes")) {
      try FileReading.bytes(atPath: three, limit: 4)
    }
  }
}
