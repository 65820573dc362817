import OrderfileLayout
import Testing
import _OrderfileTestSupport

/// The page probe's output (format in Sources/OrderfilePageProbe/page_probe.c) as the tool reads it.
@Suite("page probe output: counts only at the sizes the probe's page allows")
struct PageProbeOutputTests {
  /// Pages of a run on a 16 KiB system: the probe wrote page starts 16 KiB apart.
  let sixteen = """
    pagesize 4000
    module 0 aaaaaaaa0000 /data/app
    page 0 0
    page 0 4000
    page 0 c000
    page 0 14000
    """

  @Test("a 16 KiB probe page: no 4 KiB figure, 16 and 64 KiB counted from its pages")
  func sixteenKiBSystem() throws {
    let launch = try PageProbe.parse(sixteen, pageSizes: [4096, 16384, 65536], program: "app")
    #expect(launch.probePageSize == 16384)
    let pages = try #require(launch.modules.first).pages.map { [$0.pageSize, UInt64($0.pages)] }
    // 0x0-0xffff holds three of them, 0x14000 lies in the second 64 KiB page.
    #expect(pages == [[16384, 4], [65536, 2]])
  }

  @Test("a 4 KiB probe page: every size at or above it")
  func fourKiBSystem() throws {
    let text = "pagesize 1000\nmodule 0 5555000 /bin/app\npage 0 1000\npage 0 2000\npage 0 5000\n"
    let launch = try PageProbe.parse(text, pageSizes: [4096, 16384, 65536], program: "app")
    #expect(launch.probePageSize == 4096)
    #expect(
      launch.modules.first?.pages.map { [$0.pageSize, UInt64($0.pages)] } == [[4096, 3], [16384, 2], [65536, 1]])
  }

  @Test("a page size that is no power of two is bad output, named with its line")
  func badPageSize() {
    #expect(throws: LayoutError.self) {
      try PageProbe.parse("pagesize 3000\nmodule 0 0 /bin/app\n", pageSizes: [4096], program: "app")
    }
  }
}

@Suite("page probe: a module it cannot find is named, not taken for a failed run")
struct PageProbeModuleTests {
  @Test("an --until module or a library that does not exist: its path and why, before anything runs")
  func missingModule() throws {
    let probe = PageProbe(library: PackagePaths.pageProbe)
    let missing = "/nonexistent/libgone.so"
    #expect(throws: LayoutError.unresolvable(path: missing, reason: "No such file or directory")) {
      try probe.measure(program: "/bin/true", arguments: [], until: .init(module: missing, addresses: [0x10]))
    }
    #expect(throws: LayoutError.unresolvable(path: missing, reason: "No such file or directory")) {
      try probe.measure(library: missing, program: "/bin/true", arguments: [])
    }
    let message = LayoutError.unresolvable(path: missing, reason: "No such file or directory").errorDescription
    #expect(message == "/nonexistent/libgone.so: cannot be measured: no such file or directory")
  }
}
