import Foundation
import OrderfileLayout
import OrderfileSymbolization
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Collects every element's name and attributes.
private final class SVGCollector: NSObject, XMLParserDelegate {
  var elements: [(name: String, attributes: [String: String])] = []
  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String]
  ) {
    elements.append((name, attributes))
  }
}

@Suite("Page strip picture")
struct PageStripRendererTests {
  @Test("the SVG is well-formed XML with one cell per text page in each strip, touched pages coloured")
  func cells() throws {
    // Text from 0x1000 to 0xA000: pages 1...9 (9 pages). Launch touches a (page 1) and c (pages 5, 6).
    let functions = [
      FunctionSymbol(name: "a", address: 0x1000, size: 0x100, binding: .global, sectionName: ".text"),
      FunctionSymbol(name: "c", address: 0x5F00, size: 0x200, binding: .global, sectionName: ".text"),
      FunctionSymbol(name: "z", address: 0x9000, size: 0x1000, binding: .global, sectionName: ".text"),
    ]
    let estimate = Estimator().estimate(
      launch: ["a", "c"], functions: functions, order: nil, binary: "/bin/app<1>", trace: nil, orderPath: nil,
      measured: nil)
    let svg = PageStripRenderer().render(estimate)
    let parser = XMLParser(data: Data(svg.utf8))
    let collector = SVGCollector()
    parser.delegate = collector
    #expect(parser.parse(), "\(String(describing: parser.parserError))")
    let cells = collector.elements.filter { $0.name == "rect" && $0.attributes["class"] == "page" }
    #expect(cells.count == 18)
    let grey = cells.filter { $0.attributes["fill"] == "#e6e6e6" }
    #expect(grey.count == 18 - 3 - 1)  // now: 3 touched pages; ordered: 1
    #expect(svg.contains("/bin/app&lt;1&gt;") == false)  // only the file name is shown
    #expect(svg.contains("app&lt;1&gt;"))
  }
}
