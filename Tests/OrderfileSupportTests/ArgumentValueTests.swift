import OrderfileSupport
import Testing

@Suite("Values that parse themselves")
struct ArgumentValueTests {
  @Test("a rate is a fraction or a percentage between 0 and 1")
  func rates() {
    #expect(Rate(argument: "0.95")?.value == 0.95)
    #expect(Rate(argument: "95%")?.value == 0.95)
    #expect(Rate(argument: "0")?.value == 0)
    #expect(Rate(argument: "100%")?.value == 1)
    for bad in ["lots", "1.5", "-0.1", "101%", "%", "", "nan"] {
      #expect(Rate(argument: bad) == nil, "\(bad)")
    }
    #expect(Rate(0.95).description == "0.95")
  }

  @Test("a percentage is a finite number of 0 or more, with or without %")
  func percentages() {
    #expect(Percentage(argument: "2")?.value == 2)
    #expect(Percentage(argument: "2.5%")?.value == 2.5)
    #expect(Percentage(argument: "250")?.value == 250)
    for bad in ["lots", "-1", "inf", "2%%", ""] {
      #expect(Percentage(argument: bad) == nil, "\(bad)")
    }
    #expect(Percentage(2).description == "2%")
  }
}
