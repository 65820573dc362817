import OrderfileSymbolization
import Testing

@testable import OrderfileRecording

/// How a `--until` name is read, and Rust's two manglings' spellings of one function.
@Suite("--until names")
struct StopNameTests {
  @Test("the last identifier is the one a mangled name holds: outside generic arguments and closures")
  func lastIdentifier() {
    #expect(StopName("core::ptr::drop_in_place<fd::cli::Opts>").lastWord == "drop_in_place")
    #expect(StopName("core::ptr::drop_in_place::<fd::cli::Opts>").lastWord == "drop_in_place")
    #expect(StopName("std::rt::lang_start::{{closure}}").lastWord == "lang_start")
    #expect(StopName("std::rt::lang_start::<()>::{closure#0}").lastWord == "lang_start")
    #expect(StopName("fd::main::h0123456789abcdef").lastWord == "main")
    #expect(StopName("swift::performTypeChecking(swift::SourceFile&)").lastWord == "performTypeChecking")
    #expect(StopName("App.serverIsUp(Swift.Int) -> ()").lastWord == "serverIsUp")
    #expect(!StopName("std::rt::lang_start::<()>::{closure#0}").hasParameters)
  }

  @Test("a legacy hash segment is split off and must be the linkage name's")
  func legacyHash() {
    let name = StopName("fd::main::h0123456789abcdef")
    #expect(name.wanted == "fd::main" && name.hash == "h0123456789abcdef")
    #expect(name.matches(linkageName: "_ZN2fd4main17h0123456789abcdefE", demangled: "fd::main"))
    #expect(!name.matches(linkageName: "_ZN2fd4main17h1111111111111111E", demangled: "fd::main"))
    #expect(StopName("fd::main::hx").hash == nil)
  }

  @Test(
    "either mangling's spelling names the function in the other",
    arguments: [
      ("std::rt::lang_start::{{closure}}", "std::rt::lang_start::<()>::{closure#0}"),
      ("std::rt::lang_start::{closure#0}", "std::rt::lang_start::{{closure}}"),
      ("fd::walk::spawn_senders::{{closure}}::{{closure}}", "fd::walk::spawn_senders::{closure#0}::{closure#1}"),
      ("walk::spawn_senders::{closure#0}::{closure#1}", "fd::walk::spawn_senders::{closure#0}::{closure#1}"),
      ("core::ptr::drop_in_place<fd::cli::Opts>", "core::ptr::drop_in_place::<fd::cli::Opts>"),
      ("core::ptr::drop_in_place::<fd::cli::Opts>", "core::ptr::drop_in_place<fd::cli::Opts>"),
    ])
  func bothManglings(wanted: String, readable: String) {
    #expect(RustName.names(readable, wanted))
  }

  @Test(
    "other functions are not named: another closure, another instance, a qualified path's method",
    arguments: [
      ("fd::walk::spawn_senders::{closure#1}", "fd::walk::spawn_senders::{closure#0}"),
      ("fd::walk::spawn_senders::{{closure}}", "fd::walk::spawn_senders::{closure#0}::{closure#0}"),
      ("core::ptr::drop_in_place<fd::cli::Opts>", "core::ptr::drop_in_place::<fd::cli::Args>"),
      (
        "std::rt::lang_start::{{closure}}",
        "<std::rt::lang_start<()>::{closure#0} as core::ops::function::FnOnce<()>>::call_once",
      ),
    ])
  func otherFunctions(wanted: String, readable: String) {
    #expect(!RustName.names(readable, wanted))
  }

  @Test("the nearest names: those holding the last identifier, nearest end first; else a few edits away")
  func nearest() {
    let functions = ["ada_demangle", "_ZN3app9Demangler8demangleEv", "ZSTD_compressStream2", "ZSTD_decompress"].map {
      FunctionSymbol(name: $0, address: 0x1000, size: 16, binding: .global, sectionName: ".text")
    }
    #expect(StopName("Demanglr::demangle").nearest(in: functions) == ["app::Demangler::demangle()", "ada_demangle"])
    #expect(StopName("ZSTD_compressStreem2").nearest(in: functions) == ["ZSTD_compressStream2"])
    #expect(StopName("nothing_like_it").nearest(in: functions).isEmpty)
  }

  @Test("Rust linkage names: v0, and legacy with its hash")
  func rustLinkageNames() {
    #expect(RustName.isRust(linkageName: "_RNvCs1234_2fd4main"))
    #expect(RustName.isRust(linkageName: "_ZN2fd4main17h0123456789abcdefE"))
    #expect(RustName.isRust(linkageName: "_ZN2fd4main17h0123456789abcdefE.llvm.42"))
    #expect(!RustName.isRust(linkageName: "_ZN2ns4mainEv"))
  }
}
