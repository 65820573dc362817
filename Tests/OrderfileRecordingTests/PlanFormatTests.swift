import Foundation
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
    let copies = try PackagePaths.sourcesSpelling(spellings, besides: header)
    #expect(copies.isEmpty, "the plan's format is defined in \(header) only:\n\(copies.joined(separator: "\n"))")
  }
}
