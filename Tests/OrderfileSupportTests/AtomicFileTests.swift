import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("Atomic file writes")
struct AtomicFileTests {
  @Test("a regular file is replaced whole, with no temporary left behind")
  func regularFile() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("out.order")
    try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
    try AtomicFile.write("new\n", to: path)
    #expect(try FileReading.text(atPath: path) == "new\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.order"])
  }

  @Test("a destination that is not a regular file (a FIFO, like /dev/null or a pipe) is written in place, not replaced")
  func specialFile() throws {
    let directory = try TemporaryDirectory()
    let fifo = directory.file("pipe")
    #expect(mkfifo(fifo, 0o600) == 0)
    // A reader must hold the FIFO open for the writer's open to succeed.
    let reader = open(fifo, O_RDONLY | O_NONBLOCK)
    #expect(reader >= 0)
    defer { close(reader) }
    try AtomicFile.write("main\n", to: fifo)
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = read(reader, &buffer, buffer.count)
    #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "main\n")
    var info = stat()
    #expect(stat(fifo, &info) == 0)
    #expect(info.st_mode & S_IFMT == S_IFIFO)
  }

  @Test("a directory is refused")
  func directoryRefused() throws {
    let directory = try TemporaryDirectory()
    #expect(throws: SupportError.self) { try AtomicFile.write("x", to: directory.path) }
  }

  @Test("a destination that cannot be opened for writing (a socket) is a write error, exit 74")
  func socketRefused() throws {
    let directory = try TemporaryDirectory()
    let socket = try UnixSocket(path: directory.file("sock"))
    #expect {
      try AtomicFile.write("main\n", to: socket.path)
    } throws: { error in
      guard case .cannotWrite(let path, _, _)? = error as? SupportError else { return false }
      return path == socket.path && ExitStatus.of(error) == .ioError
    }
  }
}
