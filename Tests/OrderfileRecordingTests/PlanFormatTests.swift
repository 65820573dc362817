import Foundation
import OrderfileSupport
import OrderfileTraceFormat
import Testing
import _OrderfileTestSupport

@Suite("The recording plan's format, defined once")
struct PlanFormatTests {
  @Test("no file under Sources but orderfile_plan_format.h spells the plan's magic, variable or clock file")
  func oneDefinition() throws {
    let spellings = [OF_PLAN_MAGIC, OF_PLAN_VARIABLE, OF_PLAN_CLOCK_SUFFIX]
    #expect(spellings == ["OFPLAN1", "ORDERFILE_TRAP_PLAN", ".clock"], "the header as Swift reads it")
    let header = "OrderfileTraceFormat/include/orderfile_plan_format.h"
    let sources = PackagePaths.root + "/Sources"
    let files = (FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String } ?? [])
      .filter { [".c", ".h", ".swift"].contains(where: $0.hasSuffix) && $0 != header }
    try #require(files.count > 100, "no sources found under \(sources)")
    var copies: [String] = []
    for file in files {
      let text = try FileReading.text(atPath: sources + "/" + file)
      for spelling in spellings where text.contains("\"\(spelling)\"") {
        copies.append("Sources/\(file) spells \"\(spelling)\"")
      }
    }
    #expect(copies.isEmpty, "the plan's format is defined in \(header) only:\n\(copies.joined(separator: "\n"))")
  }
}
