/// The widths of an SVG document's `<rect class="NAME" ...>` elements, in document order:
/// how a test reads the bars an HTML report draws.
public func svgRectWidths(_ svg: String, class name: String) -> [Double] {
  svg.components(separatedBy: "<rect class=\"\(name)\"").dropFirst().compactMap { rest in
    rest.components(separatedBy: "width=\"").dropFirst().first?.split(separator: "\"").first.flatMap {
      Double($0)
    }
  }
}
