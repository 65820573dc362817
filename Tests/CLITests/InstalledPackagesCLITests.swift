import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// `orderfile flags --instrument --packages` from a build folder, where the runtime has no
/// packages beside it (the install test covers an installed tree).
@Suite("flags --packages")
struct InstalledPackagesCLITests {
  @Test("a runtime built into the checkout has no packages: a usage error that names the folder")
  func notInstalled() throws {
    let result = try orderfile(["flags", "--instrument", "--packages"])
    #expect(result.status == 64)
    #expect(result.standardOutput.isEmpty)
    #expect(result.standardError.contains("--packages: no orderfile-runtime.pc"), "\(result.standardError)")
    #expect(result.standardError.contains(PackagePaths.binaryDirectory), "\(result.standardError)")
  }

  @Test("--packages is for the instrumented build alone", arguments: [[], ["--instrument", "--cflags"], ["--instrument", "--json"]])
  func needsInstrumentAlone(extra: [String]) throws {
    let result = try orderfile(["flags", "--packages"] + extra)
    #expect(result.status == 64)
    #expect(result.standardError.contains("--packages"), "\(result.standardError)")
  }
}
