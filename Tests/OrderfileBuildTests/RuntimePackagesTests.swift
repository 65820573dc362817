import Foundation
import OrderfileBuild
import Testing
import _OrderfileTestSupport

@Suite("Installed runtime packages")
struct RuntimePackagesTests {
  /// A prefix laid out as Scripts/install lays it out, with empty files.
  private func installedPrefix(withCMake: Bool = true) throws -> TemporaryDirectory {
    let prefix = try TemporaryDirectory("orderfile-prefix")
    let fileManager = FileManager.default
    for directory in ["bin", "include", "lib/pkgconfig", "lib/cmake/OrderfileRuntime"] {
      try fileManager.createDirectory(atPath: prefix.file(directory), withIntermediateDirectories: true)
    }
    var files = ["include/orderfile.h", "lib/libOrderfileRuntime.so", "lib/pkgconfig/orderfile-runtime.pc"]
    if withCMake { files.append("lib/cmake/OrderfileRuntime/OrderfileRuntimeConfig.cmake") }
    for file in files { #expect(fileManager.createFile(atPath: prefix.file(file), contents: Data())) }
    return prefix
  }

  @Test("a tool in <prefix>/bin finds the runtime and both packages of that prefix")
  func foundFromTheTool() throws {
    let prefix = try installedPrefix()
    let runtime = try #require(RuntimeLocation.find(executablePath: prefix.file("bin/orderfile"), environment: [:]))
    #expect(runtime.libraryDirectory == prefix.file("lib"))
    #expect(runtime.includeDirectory == prefix.file("include"))
    let packages = try #require(RuntimePackages.installed(with: runtime))
    #expect(packages.prefix == prefix.path)
    #expect(packages.pkgConfigDirectory == prefix.file("lib/pkgconfig"))
    // A prefix no tool searches by default: the snippet says where to look.
    #expect(packages.snippet.contains("export PKG_CONFIG_PATH=\(prefix.file("lib/pkgconfig"))"))
    #expect(packages.snippet.contains("-DCMAKE_PREFIX_PATH=\(prefix.path)"))
    #expect(packages.snippet.contains("find_package(OrderfileRuntime REQUIRED)"))
    #expect(packages.snippet.contains("link_libraries(OrderfileRuntime::OrderfileRuntime)"))
    #expect(!packages.snippet.contains("target_link_libraries"), "the plain signature clashes with a keyword one")
  }

  @Test("a standard prefix needs no search path in the snippet")
  func standardPrefix() {
    let packages = RuntimePackages(
      prefix: "/usr", pkgConfigDirectory: "/usr/lib/pkgconfig", cmakeDirectory: "/usr/lib/cmake/OrderfileRuntime")
    #expect(!packages.snippet.contains("PKG_CONFIG_PATH"))
    #expect(!packages.snippet.contains("CMAKE_PREFIX_PATH"))
    #expect(packages.snippet.contains("$(shell pkg-config --libs orderfile-runtime)"))
  }

  @Test("the README shows every line --packages prints for an installed prefix")
  func readmeShowsPackages() throws {
    let packages = RuntimePackages(
      prefix: "/usr/local", pkgConfigDirectory: "/usr/local/lib/pkgconfig",
      cmakeDirectory: "/usr/local/lib/cmake/OrderfileRuntime")
    let readme = try String(contentsOfFile: PackagePaths.root + "/README.md", encoding: .utf8)
    for line in packages.snippet.split(separator: "\n") where !line.hasPrefix("# Make") {
      #expect(readme.contains(line), "README lacks the printed line: \(line)")
    }
  }

  @Test("a runtime without both package files has no packages")
  func missingPackage() throws {
    let prefix = try installedPrefix(withCMake: false)
    let runtime = try #require(RuntimeLocation.find(executablePath: prefix.file("bin/orderfile"), environment: [:]))
    #expect(RuntimePackages.installed(with: runtime) == nil)
  }
}
