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

  /// Names from Examples/swift-app's release build (`nm .build/release/swiftapp`).
  @Test(
    "Swift names from the SwiftPM example",
    arguments: [
      ("$s12SwiftAppCore12settingsLoadyyAA7ContextVzF", "SwiftAppCore.settingsLoad(inout SwiftAppCore.Context) -> ()"),
      (
        "$s12SwiftAppCore8LauncherC6launchAA13LaunchSummaryVyF",
        "SwiftAppCore.Launcher.launch() -> SwiftAppCore.LaunchSummary"
      ),
    ])
  func swiftExample(name: String, expected: String) {
    #expect(Demangler.demangle(name) == expected)
  }

  /// Names from Examples/rust-app's release build with cargo 1.95: the crate's own code in
  /// the legacy mangling (the default on stable), the precompiled standard library in v0.
  @Test(
    "Rust legacy names from the cargo example lose their hash",
    arguments: [
      ("_ZN7rustapp8handlers13settings_load17hbab8301b84629b45E", "rustapp::handlers::settings_load"),
      ("_ZN7rustapp4main17h9e012f9b418bbb75E", "rustapp::main"),
      (
        "_ZN4core3ptr37drop_in_place$LT$rustapp..Context$GT$17hbc033eeb22088e39E",
        "core::ptr::drop_in_place<rustapp::Context>"
      ),
      ("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h97f122ef4c2091c3E", "std::rt::lang_start::{{closure}}"),
    ])
  func rustLegacy(name: String, expected: String) {
    #expect(Demangler.demangle(name) == expected)
  }

  /// v0 names: the standard library's from the default build, the crate's own from a
  /// build with `-C symbol-mangling-version=v0`.
  @Test(
    "Rust v0 names from the cargo example",
    arguments: [
      ("_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal", "std::rt::lang_start_internal"),
      (
        "_RNvXNvNtCsjrHSEGnQ3l9_3std2io17default_write_fmtINtB2_7AdapterNtNtB4_5stdio10StdoutLockENtNtCsgEmfK2I1SDS_4core3fmt5Write9write_strB6_",
        "<std::io::default_write_fmt::Adapter<std::io::stdio::StdoutLock> as core::fmt::Write>::write_str"
      ),
      ("_RNvNtCs1zELcZ9aiu3_7rustapp8handlers10admin_load", "rustapp::handlers::admin_load"),
      ("_RNvCs1zELcZ9aiu3_7rustapp4main", "rustapp::main"),
      (
        "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeNtCs1zELcZ9aiu3_7rustapp7ContextEBI_",
        "core::ptr::drop_in_place::<rustapp::Context>"
      ),
    ])
  func rustV0(name: String, expected: String) {
    #expect(Demangler.demangle(name) == expected)
  }

  @Test(
    "other names and invalid manglings are unchanged",
    arguments: [
      "main", "located_function", "_Z", "_Zbogus!", "$sbogus", "", "_T", "helper.cold", "swiftapp_main",
      "_R", "_Rbogus", "_Rb_tree_increment",
    ])
  func unchanged(name: String) {
    #expect(Demangler.demangle(name) == name)
  }
}
