import Foundation
import OrderfileOrdering
import OrderfileSupport
import Testing
import _OrderfileTestSupport

@testable import OrderfileCommands

/// A report JSON cannot hold: a NaN share.
private struct UnencodableReport: Encodable {
  var share = Double.nan
}

private struct UnencodableTextRenderer: Renderer {
  func render(_ report: UnencodableReport) throws -> String { "share \(report.share)\n" }
}

@Suite("Orderfile outputs")
struct OrderfileOptionsTests {
  @Test("a report that cannot be rendered fails the command before any orderfile is written")
  func reportRenderedBeforeWriting() throws {
    let directory = try TemporaryDirectory()
    for destination in [OrderfileDestination.file(directory.file("app.order")), .directory(directory.file("orders"))] {
      let options = OrderfileOptions(destination: destination)
      #expect(throws: EncodingError.self) {
        try options.finish(
          [ModuleOrderfile(modulePath: "/bin/app", moduleIndex: 0, text: "main\n")], reportFormat: .json,
          text: UnencodableTextRenderer(), report: { _ in UnencodableReport() }, matchRate: 1)
      }
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
  }
}
