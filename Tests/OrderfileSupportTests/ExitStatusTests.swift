import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@Suite("Exit statuses of file errors")
struct ExitStatusTests {
  @Test("an input that is missing, or a directory, cannot be read: exit 66")
  func unreadableInput() throws {
    let directory = try TemporaryDirectory()
    for path in [directory.file("missing.order"), directory.path] {
      #expect {
        _ = try FileReading.text(atPath: path)
      } throws: { error in
        guard case .cannotRead(let failed, _, _)? = error as? SupportError else { return false }
        return failed == path && ExitStatus.of(error) == .noInput
      }
    }
  }

  @Test("an output in a missing directory cannot be written: exit 74")
  func unwritableOutput() throws {
    let directory = try TemporaryDirectory()
    let path = directory.file("missing/app.order")
    #expect {
      try AtomicFile.write("main\n", to: path)
    } throws: { error in
      guard case .cannotWrite(let failed, _, _)? = error as? SupportError else { return false }
      return failed == path && ExitStatus.of(error) == .ioError
    }
  }

  @Test("an error that does not say its status is an internal error: exit 70")
  func unknownError() {
    struct Unexpected: Error {}
    #expect(ExitStatus.of(Unexpected()) == .internalError)
  }
}
