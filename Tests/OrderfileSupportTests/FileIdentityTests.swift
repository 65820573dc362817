import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("FileIdentity: which file a path names")
struct FileIdentityTests {
  private struct Module: FileNamed, Equatable {
    var path: String
  }

  @Test("a link is the same file, a copy is not; a module is found by its file first, by its name second")
  func named() throws {
    let work = try TemporaryDirectory("identity")
    defer { work.remove() }
    try FileManager.default.createDirectory(atPath: work.file("other"), withIntermediateDirectories: false)
    #expect(FileManager.default.createFile(atPath: work.file("app"), contents: Data("a".utf8)))
    #expect(FileManager.default.createFile(atPath: work.file("other/app"), contents: Data("a".utf8)))
    try FileManager.default.createSymbolicLink(atPath: work.file("link"), withDestinationPath: work.file("app"))
    #expect(FileIdentity.same(work.file("link"), work.file("app")))
    #expect(!FileIdentity.same(work.file("other/app"), work.file("app")))
    #expect(!FileIdentity.same(work.file("missing"), work.file("missing")))

    let copyFirst = [Module(path: work.file("other/app")), Module(path: work.file("app"))]
    // The file itself wins over an earlier module of the same name.
    #expect(copyFirst.named(work.file("link")) == Module(path: work.file("app")))
    // A path that names no file here (a module measured elsewhere) goes by its name.
    #expect(copyFirst.named("/elsewhere/app") == Module(path: work.file("other/app")))
    #expect(copyFirst.named("/elsewhere/lib.so") == nil)
  }
}
