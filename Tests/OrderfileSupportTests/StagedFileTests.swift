import Foundation
import Testing
import _OrderfileTestSupport

@testable import OrderfileSupport

@Suite("Staged files")
struct StagedFileTests {
  @Test(
    "a program started while a file is staged does not inherit its descriptor (running the file would fail with ETXTBSY)"
  )
  func descriptorNotInherited() throws {
    let directory = try TemporaryDirectory("orderfile-staged")
    let staged = try StagedFile.stage(Array("#!/bin/sh\n".utf8), for: directory.file("script"), mode: 0o755)
    defer { staged.discard() }
    // The child lists the files its own descriptors point to.
    let listing = try ProcessRunner.run("/bin/sh", ["-c", "for fd in /proc/$$/fd/*; do readlink \"$fd\"; done"])
    #expect(listing.succeeded)
    #expect(!listing.standardOutput.contains(PathName.split(staged.temporary).base), "\(listing.standardOutput)")
  }
}
