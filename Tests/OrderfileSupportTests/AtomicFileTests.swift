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

  @Test("a destination that is a symbolic link is followed: the file it points to is replaced and the link stays")
  func symbolicLinkFollowed() throws {
    let directory = try TemporaryDirectory()
    try AtomicFile.write("old\n", to: directory.file("real.order"))
    #expect(symlink("real.order", directory.file("out.order")) == 0)
    try AtomicFile.write("new\n", to: directory.file("out.order"))
    var info = stat()
    #expect(lstat(directory.file("out.order"), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
    #expect(try FileReading.text(atPath: directory.file("real.order")) == "new\n")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["out.order", "real.order"])
  }

  @Test("a dangling link is followed too: the file it names is created")
  func danglingLinkFollowed() throws {
    let directory = try TemporaryDirectory()
    #expect(symlink(directory.file("made.order"), directory.file("out.order")) == 0)
    try AtomicFile.write("new\n", to: directory.file("out.order"))
    #expect(try FileReading.text(atPath: directory.file("made.order")) == "new\n")
  }

  @Test("a file that is replaced keeps its mode; a new one gets the default")
  func modeKept() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("secret.order")
    try AtomicFile.write("old\n", to: path)
    #expect(chmod(path, 0o600) == 0)
    try AtomicFile.write("new\n", to: path)
    var info = stat()
    #expect(stat(path, &info) == 0)
    #expect(info.st_mode & 0o7777 == 0o600)
    try AtomicFile.write("new\n", to: directory.file("fresh.order"))
    #expect(stat(directory.file("fresh.order"), &info) == 0)
    #expect(info.st_mode & 0o7777 == 0o644)
  }

  @Test("a temporary a killed run left is removed by the next write; one another process holds locked is not")
  func staleTemporariesRemoved() throws {
    let directory = try TemporaryDirectory()
    let stale = directory.file(".out.order.a1B2c3")
    let live = directory.file(".out.order.Z9y8X7")
    let unrelated = directory.file(".out.order.keep")
    for path in [stale, live, unrelated] {
      try "partial".write(toFile: path, atomically: false, encoding: .utf8)
      try backdate(path)
    }
    let holder = open(live, O_RDONLY)
    #expect(holder >= 0 && flock(holder, LOCK_EX) == 0)
    defer { close(holder) }
    try AtomicFile.write("new\n", to: directory.file("out.order"))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        == [".out.order.Z9y8X7", ".out.order.keep", "out.order"])
  }

  @Test("a written temporary a run killed a moment ago is removed by the next write; a new empty one is kept")
  func freshStaleTemporaryRemoved() throws {
    let directory = try TemporaryDirectory()
    // Full-size, unlocked: its writer died between writing and renaming it, just now.
    let written = directory.file(".out.order.a1B2c3")
    try String(repeating: "function\n", count: 1000).write(toFile: written, atomically: false, encoding: .utf8)
    // Empty and new: it may be another run's, between mkstemp and its lock.
    let empty = directory.file(".out.order.Z9y8X7")
    let descriptor = creat(empty, 0o600)
    #expect(descriptor >= 0)
    close(descriptor)
    try AtomicFile.write("new\n", to: directory.file("out.order"))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [
        ".out.order.Z9y8X7", "out.order",
      ])
  }

  @Test("a set of files is written together: when one cannot be written, none is")
  func setIsAllOrNothing() throws {
    let directory = try TemporaryDirectory()
    try AtomicFile.write("old\n", to: directory.file("a.json"))
    #expect(throws: SupportError.self) {
      try AtomicFile.write([
        OutputFile(path: directory.file("a.json"), text: "new\n"),
        OutputFile(path: directory.file("missing/b.html"), text: "new\n"),
      ])
    }
    #expect(try FileReading.text(atPath: directory.file("a.json")) == "old\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["a.json"])
  }

  @Test("a directory that does not exist is made whole, with no staging directory left")
  func newDirectory() throws {
    let directory = try TemporaryDirectory()
    let out = directory.file("orders")
    try AtomicFile.write([OutputFile(path: "app.order", text: "main\n")], intoDirectory: out)
    #expect(try FileReading.text(atPath: out + "/app.order") == "main\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["orders"])
  }

  @Test("a directory of earlier orderfiles is swapped for the new set as a whole")
  func directorySwapped() throws {
    let directory = try TemporaryDirectory()
    let out = directory.file("orders")
    try AtomicFile.write(
      [OutputFile(path: "app.order", text: "old\n"), OutputFile(path: "libui.so.order", text: "old\n")],
      intoDirectory: out)
    #expect(chmod(out, 0o750) == 0)
    let before = try inode(out)
    try AtomicFile.write(
      [OutputFile(path: "app.order", text: "new\n"), OutputFile(path: "libui.so.order", text: "new\n")],
      intoDirectory: out)
    // A new inode shows the directory was exchanged, not its files replaced one at a time.
    #expect(try inode(out) != before)
    var info = stat()
    #expect(stat(out, &info) == 0 && info.st_mode & 0o7777 == 0o750)
    #expect(try FileReading.text(atPath: out + "/app.order") == "new\n")
    #expect(try FileReading.text(atPath: out + "/libui.so.order") == "new\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["orders"])
  }

  @Test("a directory that holds the user's own files keeps them, and gets the new orderfiles")
  func directoryWithUserFiles() throws {
    let directory = try TemporaryDirectory()
    let out = directory.file("orders")
    #expect(mkdir(out, 0o755) == 0)
    try AtomicFile.write("old\n", to: out + "/app.order")
    try AtomicFile.write("notes\n", to: out + "/README")
    try AtomicFile.write([OutputFile(path: "app.order", text: "new\n")], intoDirectory: out)
    #expect(try FileReading.text(atPath: out + "/app.order") == "new\n")
    #expect(try FileReading.text(atPath: out + "/README") == "notes\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["README", "app.order"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["orders"])
  }

  @Test("a staging directory a killed run left is removed by the next write to that directory")
  func staleStagingDirectoryRemoved() throws {
    let directory = try TemporaryDirectory()
    let stale = directory.file(".orders.Qw3rTy")
    #expect(mkdir(stale, 0o700) == 0)
    try AtomicFile.write("partial", to: stale + "/app.order")
    try backdate(stale)
    try AtomicFile.write([OutputFile(path: "app.order", text: "main\n")], intoDirectory: directory.file("orders"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["orders"])
  }

  /// Sets the file's times an hour back, past the age at which an unlocked temporary is stale.
  private func backdate(_ path: String) throws {
    let hourAgo = Date(timeIntervalSinceNow: -3600)
    try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: path)
  }

  private func inode(_ path: String) throws -> ino_t {
    var info = stat()
    guard stat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
    return info.st_ino
  }
}
