import Foundation
import OrderfileRecording
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// What the runtime does with what it finds at its trace path: its own earlier image's
/// trace, another process's trace, a file that is not a trace.
@Suite("Trace paths")
struct TracePathTests {
  /// Module-relative addresses of image `n`'s two functions, as reexec printed them.
  private func image(_ n: Int, in output: String) -> [UInt64] {
    RuntimeFixture.addresses(output, labelled: "image\(n)")
  }

  @Test("a program that executes itself keeps the trace of every image", arguments: [false, true])
  func reexec(fixedPath: Bool) throws {
    let directory = try TemporaryDirectory("runtime-reexec")
    let program = try RuntimeFixture.program("reexec.c", compiler: .clang, in: directory, name: "reexec")
    let fixed = directory.file("fixed.trace")
    // The default pattern (orderfile-%e-%p.trace, in the working directory), or a fixed path.
    let run = try RuntimeFixture.run(
      program, ["2", "print"], environment: fixedPath ? ["ORDERFILE_OUTPUT": fixed] : [:],
      currentDirectory: directory.path, timeLimit: 60)
    #expect(run.succeeded && run.standardError.isEmpty, "\(run.standardError)")
    let traces = try RuntimeFixture.traces(in: directory)
    #expect(traces.count == 3, "\(traces)")
    guard traces.count == 3 else { return }
    let first = traces[0]
    if fixedPath { #expect(first == fixed) }
    #expect(traces == [first, first + ".exec1", first + ".exec2"])
    // The first image ran image 2's functions, then became image 1, then image 0.
    for (number, path) in traces.enumerated() {
      let trace = try TraceReader.read(path: path)
      let main = try #require(trace.mainModule)
      let addresses = Set(trace.addresses(inModule: main))
      let ran = 2 - number
      #expect(addresses.isSuperset(of: image(ran, in: run.standardOutput)), "\(path)")
      #expect(addresses.isDisjoint(with: image(ran == 1 ? 0 : 1, in: run.standardOutput)), "\(path)")
      // exec runs no atexit handler: only the last image closes its trace.
      #expect(trace.header.isClosed == (number == 2), "\(path)")
    }
    let pids = try traces.map { try TraceReader.read(path: $0).header.pid }
    #expect(Set(pids).count == 1)
  }

  @Test("record collects the trace of each image of a process that executes itself")
  func recorderCollectsImages() throws {
    let directory = try TemporaryDirectory("runtime-reexec-record")
    let program = try RuntimeFixture.program("reexec.c", compiler: .gcc, in: directory, name: "reexec")
    let output = directory.file("launch.trace")
    let recording = try RuntimeRecorder().record(
      RecordingRequest(output: output, program: program, arguments: ["2", "print"]))
    #expect(recording.status == 0)
    #expect(recording.tracePath == output)
    #expect(recording.childTraces.isEmpty)
    #expect(recording.execTraces.count == 2)
    let images = [output] + recording.execTraces
    let pid = try TraceReader.read(path: output).header.pid
    for (number, path) in images.enumerated() {
      #expect(path == output + (number == 0 ? "" : ".\(pid).exec\(number)"))
      #expect(try TraceReader.read(path: path).header.pid == pid)
    }
  }

  @Test("a new trace at a fixed path replaces the old one whole: a reader of the old one keeps all of it")
  func replacedByRename() throws {
    let directory = try TemporaryDirectory("runtime-fixed-path")
    let program = try RuntimeFixture.program("exit_paths.c", compiler: .clang, in: directory)
    let path = directory.file("fixed.trace")
    let first = try RuntimeFixture.run(program, ["exit"], environment: ["ORDERFILE_OUTPUT": path])
    #expect(first.succeeded)
    let original = try FileReading.bytes(atPath: path)
    let oldPID = try TraceReader.read(path: path).header.pid

    // A tool reading the old trace: it has the file open (and could have it mapped).
    let reader = open(path, O_RDONLY | O_CLOEXEC)
    #expect(reader >= 0)
    defer { close(reader) }
    let second = try RuntimeFixture.run(program, ["_exit"], environment: ["ORDERFILE_OUTPUT": path])
    #expect(second.succeeded && second.standardError.isEmpty, "\(second.standardError)")

    var status = stat()
    #expect(fstat(reader, &status) == 0)
    #expect(Int(status.st_size) == original.count, "the old trace was truncated under its reader")
    var kept = [UInt8](repeating: 0, count: original.count)
    #expect(pread(reader, &kept, kept.count, 0) == original.count)
    #expect(kept == original)
    let replaced = try TraceReader.read(path: path)
    #expect(replaced.header.pid != oldPID)
    #expect(!replaced.header.isClosed)
    // No temporary file is left beside it.
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }.isEmpty)
  }

  @Test("a file at ORDERFILE_OUTPUT that is not a trace is left alone, with one warning; an empty one is used")
  func foreignFile() throws {
    let directory = try TemporaryDirectory("runtime-foreign")
    let program = try RuntimeFixture.program("exit_paths.c", compiler: .gcc, in: directory)
    let notes = directory.file("notes.txt")
    try "keep me\n".write(toFile: notes, atomically: false, encoding: .utf8)
    let run = try RuntimeFixture.run(program, ["exit"], environment: ["ORDERFILE_OUTPUT": notes])
    #expect(run.succeeded)
    #expect(try FileReading.text(atPath: notes) == "keep me\n")
    let traces = try FileManager.default.contentsOfDirectory(atPath: directory.path)
      .filter { $0.hasPrefix("notes.txt.") }
    #expect(traces.count == 1)
    let written = directory.file(try #require(traces.first))
    #expect(
      run.standardError
        == "orderfile: warning: trace file '\(notes)' exists and is not an orderfile trace; leaving it alone and writing '\(written)'\n"
    )
    #expect(try TraceReader.read(path: written).header.isClosed)

    // An empty file, as mktemp leaves one, is taken without a word.
    let empty = directory.file("empty.trace")
    #expect(FileManager.default.createFile(atPath: empty, contents: nil))
    let quiet = try RuntimeFixture.run(program, ["exit"], environment: ["ORDERFILE_OUTPUT": empty])
    #expect(quiet.succeeded && quiet.standardError.isEmpty, "\(quiet.standardError)")
    #expect(try TraceReader.read(path: empty).header.isClosed)
  }

  @Test(
    "a symbolic link at ORDERFILE_OUTPUT is replaced by the trace: its target is untouched, nothing is made beside it")
  func symbolicLink() throws {
    let directory = try TemporaryDirectory("runtime-symlink")
    let program = try RuntimeFixture.program("exit_paths.c", compiler: .gcc, in: directory)
    // A file elsewhere the program must not write to or beside, as /etc/passwd for a root program.
    try FileManager.default.createDirectory(atPath: directory.file("etc"), withIntermediateDirectories: false)
    let target = directory.file("etc/passwd")
    try "root:x:0:0\n".write(toFile: target, atomically: false, encoding: .utf8)
    let link = directory.file("launch.trace")
    #expect(symlink(target, link) == 0)
    let run = try RuntimeFixture.run(program, ["exit"], environment: ["ORDERFILE_OUTPUT": link])
    #expect(run.succeeded && run.standardError.isEmpty, "\(run.standardError)")
    #expect(try FileReading.text(atPath: target) == "root:x:0:0\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("etc")) == ["passwd"])
    var status = stat()
    #expect(lstat(link, &status) == 0 && status.st_mode & S_IFMT == S_IFREG, "the link itself was replaced")
    #expect(try TraceReader.read(path: link).header.isClosed)
    #expect(
      !(try FileManager.default.contentsOfDirectory(atPath: directory.path)).contains { $0.hasPrefix("launch.trace.") })
  }
}
