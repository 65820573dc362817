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

  @Test(
    "--packages is for the instrumented build alone",
    arguments: [[], ["--instrument", "--cflags"], ["--instrument", "--json"]])
  func needsInstrumentAlone(extra: [String]) throws {
    let result = try orderfile(["flags", "--packages"] + extra)
    #expect(result.status == 64)
    #expect(result.standardError.contains("--packages"), "\(result.standardError)")
  }

  @Test("--build-system make or cmake prints that system's lines alone; swiftpm has no package")
  func oneBuildSystem() throws {
    // A prefix laid out as Scripts/install lays it out, with empty files.
    let prefix = try TemporaryDirectory("orderfile-prefix")
    defer { prefix.remove() }
    for directory in ["include", "lib/pkgconfig", "lib/cmake/OrderfileRuntime"] {
      try FileManager.default.createDirectory(atPath: prefix.file(directory), withIntermediateDirectories: true)
    }
    for file in [
      "include/orderfile.h", "lib/libOrderfileRuntime.so", "lib/pkgconfig/orderfile-runtime.pc",
      "lib/cmake/OrderfileRuntime/OrderfileRuntimeConfig.cmake",
    ] {
      try AtomicFile.write("", to: prefix.file(file))
    }
    let environment = ["ORDERFILE_RUNTIME_DIR": prefix.file("lib"), "ORDERFILE_INCLUDE_DIR": prefix.file("include")]
    let cmake = try orderfile(
      ["flags", "--instrument", "--packages", "--build-system", "cmake"], environment: environment)
    #expect(cmake.status == 0, "\(cmake.standardError)")
    #expect(cmake.standardOutput.contains("find_package(OrderfileRuntime REQUIRED)"))
    #expect(cmake.standardOutput.contains("link_libraries(OrderfileRuntime::OrderfileRuntime)"))
    #expect(!cmake.standardOutput.contains("pkg-config"))
    let make = try orderfile(
      ["flags", "--instrument", "--packages", "--build-system", "make"], environment: environment)
    #expect(make.status == 0, "\(make.standardError)")
    #expect(make.standardOutput.contains("LDLIBS += $(shell pkg-config --libs orderfile-runtime)"))
    #expect(!make.standardOutput.contains("find_package"))
    let swiftpm = try orderfile(
      ["flags", "--instrument", "--packages", "--build-system", "swiftpm"], environment: environment)
    #expect(swiftpm.status == 64)
    #expect(swiftpm.standardError.contains("--packages has no SwiftPM package"), "\(swiftpm.standardError)")
  }
}
