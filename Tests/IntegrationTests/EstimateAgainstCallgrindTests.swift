import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// The launch pages of a release binary as callgrind sees them: every function that executed
/// an instruction in that binary before `launch_ready` was entered, mapped to its pages by
/// the binary's own symbol table. Nothing of the trace or of the tool goes into it.
private struct CallgrindLaunch {
  /// Mangled names callgrind saw execute, per object file.
  let functions: [String: Set<String>]

  /// Runs `program` under callgrind and keeps the part dumped before `marker` was entered.
  init(program: String, marker: String, work: TemporaryDirectory) throws {
    let output = work.file("callgrind.out")
    try runChecked(
      ProcessRunner.resolve("valgrind"),
      [
        "--tool=callgrind", "--callgrind-out-file=" + output, "--dump-before=" + marker, "--compress-strings=no",
        "--compress-pos=no", "--demangle=no", program,
      ])
    // Parts are numbered from 1; the first ends where the marker was entered.
    var functions: [String: Set<String>] = [:]
    var object = ""
    for line in try FileReading.text(atPath: output + ".1").split(separator: "\n") {
      if line.hasPrefix("ob=") {
        object = String(line.dropFirst(3))
      } else if line.hasPrefix("fn=") {
        // A recursive activation is named "f'2".
        let name = line.dropFirst(3).split(separator: "'", maxSplits: 1).first.map(String.init) ?? ""
        functions[object, default: []].insert(name)
      }
    }
    self.functions = functions
  }

  /// Distinct pages of `binary` covered by the functions that ran in it, and by `fixed` spans
  /// (address, size); a function without a size counts the page of its address.
  func pages(of binary: String, pageSize: UInt64, fixed: [(UInt64, UInt64)] = []) throws -> Int {
    let ran = functions[binary] ?? []
    let listed = try runChecked(Toolchain.nm, ["-S", "--defined-only", binary]).standardOutput
    var pages = Set<UInt64>()
    for (address, size) in fixed { pages.formUnion((address / pageSize)...((address + max(size, 1) - 1) / pageSize)) }
    for line in listed.split(separator: "\n") {
      let fields = line.split(separator: " ")
      guard let name = fields.last, ran.contains(String(name)), fields.count >= 3,
        "tTW".contains(fields[fields.count - 2]), let address = UInt64(fields[0], radix: 16)
      else { continue }
      let size = fields.count == 4 ? UInt64(fields[1], radix: 16) ?? 0 : 0
      pages.formUnion((address / pageSize)...((address + max(size, 1) - 1) / pageSize))
    }
    return pages.count
  }
}

@Suite("estimate against an independent count of what ran", .serialized)
struct EstimateAgainstCallgrindTests {
  @Test("the release binary's launch pages equal callgrind's count of the pages its launch code covers")
  func releasePagesMatchCallgrind() throws {
    let work = try TemporaryDirectory("orderfile-callgrind")
    let example = PackagePaths.root + "/Examples/launchpad"
    let make = ProcessRunner.resolve("make")
    // gcc: the release build inlines functions the instrumented one records, and makes
    // copies (.constprop, .part) of recorded ones under names the trace does not have.
    try runChecked(
      make,
      [
        "-s", "-C", example, "instrumented", "CC=gcc", "BUILD_DIR=" + work.file("instrumented"),
        "ORDERFILE_RUNTIME_DIR=" + (try RuntimeBuilder.libraryDirectory()),
      ])
    try runChecked(make, ["-s", "-C", example, "release", "CC=gcc", "BUILD_DIR=" + work.file("release")])
    let trace = work.file("launch.trace")
    let recorded = try orderfile([
      "record", "--instrumented", "-o", trace, "--", work.file("instrumented") + "/launchpad",
    ])
    #expect(recorded.succeeded, "\(recorded.standardError)")

    // The instrumented build closes its launch window in launch_ready; callgrind stops there.
    let callgrind = try CallgrindLaunch(
      program: work.file("release") + "/launchpad", marker: "launch_ready*", work: work)
    var pieces: [String] = []
    for binary in ["launchpad", "libwidgets.so"] {
      let path = work.file("release") + "/" + binary
      let estimate = try json(orderfile(["estimate", "--trace", trace, "--binary", path, "--json"]))
      // callgrind attributes no instruction to .init or the PLT stubs (none to this binary,
      // even with --skip-plt=no and --dump-instr=yes), which run all the same: those pieces
      // are the estimate's (FixedCodePagesTests checks them against the page probe).
      let touched = (estimate["fixedCode"] as? [String: Any])?["touched"] as? [[String: Any]] ?? []
      let fixed = touched.compactMap { piece in
        (piece["address"] as? Int).map { (UInt64($0), UInt64(piece["size"] as? Int ?? 0)) }
      }
      #expect(!fixed.isEmpty, "\(binary): no .init or PLT stub counted")
      for pageSize in [4096, 16384] {
        let estimated = try #require(pages(estimate, pageSize, "current"))
        let independent = try callgrind.pages(of: path, pageSize: UInt64(pageSize), fixed: fixed)
        #expect(
          abs(estimated - independent) <= 1, "\(binary) at \(pageSize): estimate \(estimated), callgrind \(independent)"
        )
        if pageSize == 4096 { #expect(independent > 4, "\(binary): too small a launch to tell counts apart") }
      }
      let releaseOnly = try #require(estimate["releaseOnly"] as? [String: Any])
      pieces += (releaseOnly["pieces"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }
    // The copies gcc made of recorded functions are counted, and named.
    #expect(pieces.contains { $0.contains(".constprop.") || $0.contains(".part.") }, "\(pieces)")
  }
}
