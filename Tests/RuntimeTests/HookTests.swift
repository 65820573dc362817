import Foundation
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// The hook's bookkeeping, driven by hand (Tests/Fixtures/runtime/direct_hooks.c):
/// several "functions" starting within one 16-byte granule share a mark byte,
/// which must still tell them apart.
@Suite("Hook bookkeeping")
struct HookTests {
  @Test("addresses in one granule are each recorded exactly once, in first-call order")
  func sharedGranule() throws {
    let directory = try TemporaryDirectory("runtime-hooks")
    let program = try RuntimeFixture.program("direct_hooks.c", compiler: .gcc, in: directory)
    let path = directory.file("hooks.trace")
    let run = try RuntimeFixture.run(program, environment: ["ORDERFILE_OUTPUT": path])
    #expect(run.succeeded, "\(run.standardError)")
    let addresses = RuntimeFixture.addresses(run.standardOutput, labelled: "pc")
    #expect(addresses.count == 4)

    let trace = try TraceReader.read(path: path)
    let recorded = trace.addresses(inModule: try #require(trace.mainModule))
    // The fixture first passes pc 0, 0, 1, 0, 1, 2, 3, ...: first calls in that order.
    #expect(recorded == addresses)
    #expect(trace.header.droppedCount == 0)
  }
}
