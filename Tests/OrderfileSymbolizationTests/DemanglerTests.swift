import OrderfileSymbolization
import Testing

@Suite("Demangler")
struct DemanglerTests {
  @Test("C++ names demangle")
  func cxx() {
    #expect(Demangler.demangle("_ZN2ns3fooEv") == "ns::foo()")
    #expect(Demangler.demangle("_ZNK6shapes6Widget4pokeEi") == "shapes::Widget::poke(int) const")
  }

  @Test("Swift names demangle", arguments: ["$s4main3fooyyF", "_$s4main3fooyyF"])
  func swift(name: String) {
    let demangled = Demangler.demangle(name)
    #expect(demangled != name)
    #expect(demangled.contains("main.foo"))
  }

  @Test(
    "other names and invalid manglings are unchanged",
    arguments: [
      "main", "located_function", "_Z", "_Zbogus!", "$sbogus", "", "_T", "helper.cold",
    ])
  func unchanged(name: String) {
    #expect(Demangler.demangle(name) == name)
  }
}
