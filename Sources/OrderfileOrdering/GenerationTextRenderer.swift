import Foundation
import OrderfileSupport
import OrderfileSymbolization

/// What `generate` did, as text for a terminal.
public struct GenerationTextRenderer: Renderer {
  /// List every entry with its first-call time, thread, demangled name and source line.
  public var listFunctions: Bool

  public init(listFunctions: Bool = false) {
    self.listFunctions = listFunctions
  }

  public func render(_ report: GenerationReport) -> String {
    var lines: [String] = []
    let state =
      report.trace.closed
      ? "closed"
      : [.startupComplete, .timeLimit].contains(report.trace.windowReason)
        ? "its launch window closed, then the process was ended (as record ends an app or a server) or left by _exit"
        : "not closed: the process crashed, was killed or called _exit"
    lines.append(
      "trace \(report.trace.path): pid \(report.trace.pid), \(report.trace.records) records read (\(report.trace.launchRecords) in the launch window), \(state)"
    )
    if report.trace.uncommittedRecords > 0 {
      lines.append("  \(report.trace.uncommittedRecords) records were reserved but never completed and were skipped")
    }
    if report.trace.droppedFirstCalls > 0 {
      lines.append("  warning: the runtime dropped \(report.trace.droppedFirstCalls) first calls (capacity full)")
    }
    for module in report.modules {
      let destination = module.output.map { " -> \($0)" } ?? ""
      lines.append("module \(module.path)\(destination) [\(report.format.rawValue)]")
      let against = module.release.map { " against the release binary \($0.binary)" } ?? ""
      // Lines, not functions: local functions sharing a name are one line.
      let functions = module.lines == module.entries ? "" : " for \(module.entries) functions"
      if module.recordedFunctions == 0 {
        // Nothing recorded is nothing matched: no rate to speak of.
        lines.append("  \(module.lines) lines: no launch function of this module was recorded")
      } else {
        lines.append(
          "  \(module.lines) lines\(functions) from \(module.recordedFunctions) recorded functions (\(TextFormatting.percent(module.matchRate)) matched\(against))"
        )
      }
      if !module.staticInitializers.isEmpty {
        let unrecorded = module.unrecordedInitializers == 0 ? "" : ", \(module.unrecordedInitializers) not recorded"
        lines.append(
          "  \(module.staticInitializers.count) static initializers placed first\(unrecorded): \(TextFormatting.list(module.staticInitializers.map(Demangler.demangle)))"
        )
      }
      if let worse = module.worseThanDefault { lines.append("  warning: " + worse.message) }
      if module.binary != module.path { lines.append("  symbols from \(module.binary)") }
      if let release = module.release { lines.append(contentsOf: Self.releaseLines(release)) }
      if module.duplicateRecords > 0 {
        lines.append("  \(module.duplicateRecords) records folded into functions already listed")
      }
      if !module.unresolvedAddresses.isEmpty {
        let shown = TextFormatting.list(module.unresolvedAddresses)
        lines.append("  \(module.unresolvedAddresses.count) addresses have no function symbol: \(shown)")
      }
      if !module.unplaceable.isEmpty {
        lines.append(
          "  \(module.unplaceable.count) functions no orderfile can move (no size, or outside .text): \(TextFormatting.list(module.unplaceable.map(Demangler.demangle)))"
        )
      }
      if !module.refusedByLinker.isEmpty {
        lines.append(
          "  \(module.refusedByLinker.count) left out that lld would refuse (they resolve to a shared library's symbol): \(TextFormatting.list(module.refusedByLinker.map(Demangler.demangle)))"
        )
      }
      if !module.warnedByLinker.isEmpty {
        lines.append(
          "  \(TextFormatting.count(module.warnedByLinker.count, "entry", plural: "entries")) lld warns about but places ('unable to order shared symbol': a shared library exports the same name with a version; the binary's own copy is ordered): \(TextFormatting.list(module.warnedByLinker.map(Demangler.demangle)))"
        )
      }
      if !module.coldParts.isEmpty {
        lines.append(
          "  \(module.coldParts.count) cold split parts kept out of the order: \(TextFormatting.list(module.coldParts.map(Demangler.demangle)))"
        )
      }
      if !module.placedColdParts.isEmpty {
        lines.append(
          "  \(module.placedColdParts.count) cold split parts ran and are placed after the launch functions: \(TextFormatting.list(module.placedColdParts.map(Demangler.demangle)))"
        )
      }
      if let data = module.data {
        var line =
          "  launch data: \(data.touchedPages) read-only pages touched, \(data.pieces) pieces, \(data.lines) lines place them"
        let byScript = report.format.placesCodeWithoutSymbol
        if data.withoutSymbol > 0 {
          line +=
            "; \(data.withoutSymbol) have no symbol (jump tables, metadata), "
            + (byScript ? "placed by input section" : "which only --format lld-script places")
        }
        if !data.mergedSections.isEmpty {
          line +=
            "; merged literals touched (\(data.mergedSections.joined(separator: ", "))): lld merges each kind into one piece in an order of its own, which no orderfile splits; "
            + (byScript ? "the script puts it" : "an lld script puts it") + " where the launch first read it"
        }
        lines.append(line)
      }
      if !module.withoutSymbol.isEmpty {
        let cost =
          module.withoutSymbolCost.first { $0.pageSize == 4096 }.map {
            " (the launch touches \($0.ordered) pages of 4 KiB with them where they are, \($0.placed) with them placed)"
          } ?? ""
        lines.append(
          "  warning: \(module.withoutSymbol.count) launch functions have no symbol (\(module.withoutSymbolBytes) bytes), so a symbol orderfile cannot place them\(cost): \(TextFormatting.list(module.withoutSymbol, limit: 3)); --format lld-script places them, from the binary's link map"
        )
      }
      for ambiguous in module.ambiguousNames {
        lines.append(
          "  note: \(ambiguous.addresses.count) local functions are named '\(Demangler.demangle(ambiguous.name))'; the linker places all of them at this entry"
        )
      }
      if listFunctions, let functions = module.functions {
        lines.append(
          "  " + ["rank", "first call", "thread", "function", "source"].joined(separator: "  "))
        for entry in functions {
          let ms = String(format: "%9.3f ms", Double(entry.firstCallNanoseconds) / 1e6)
          lines.append(
            "  \(String(entry.rank).leftPad(4))  \(ms)  \(String(entry.thread).leftPad(6))  \(entry.demangled)  \(entry.source ?? "")"
          )
        }
      }
    }
    for skipped in report.skippedModules where skipped.reason == .systemLibrary {
      lines.append(
        "not emitted: \(skipped.path) (\(skipped.launchRecords) launch records) is a system library your build does not produce; name it with --module to write its orderfile anyway"
      )
    }
    for skipped in report.skippedModules where skipped.reason == .notSelected {
      lines.append(
        "not emitted: \(skipped.path) (\(skipped.launchRecords) launch records) is outside the requested module; use --module or --output-dir"
      )
    }
    let checked = report.modules.contains { $0.release != nil }
    lines.append(
      "match rate \(TextFormatting.percent(report.matchRate))"
        + (checked
          ? " (against the release binaries)"
          : report.trace.fromRuntime
            ? " (against the instrumented binary: give --release-binary to match against the binary you link)"
            : " (against the recorded binary, recorded without a rebuild)"))
    lines.append(
      "(the match rate answers: how many of the recorded launch functions became entries the linker will find? Whether a link followed the orderfile is 'orderfile verify'.)"
    )
    return lines.joined(separator: "\n") + "\n"
  }

  /// What the release binary lacks, named as what it is.
  static func releaseLines(_ release: GenerationReport.Release) -> [String] {
    var lines: [String] = []
    let fate = release.keptInOrderfile ? "kept in the orderfile (--keep-absent)" : "left out of the orderfile"
    if !release.inlined.isEmpty {
      lines.append(
        "  \(release.inlined.count) recorded functions are not in the release binary, inlined in the release build (\(fate)): \(TextFormatting.list(release.inlined.map(Demangler.demangle)))"
      )
    }
    if !release.renamed.isEmpty {
      let shown = release.renamed.map { "\(Demangler.demangle($0.name)) is \($0.releaseName ?? "?") there" }
      lines.append(
        "  \(release.renamed.count) recorded functions are renamed in the release build (\(fate)): \(TextFormatting.list(shown))"
      )
    }
    if !release.rehashed.isEmpty {
      lines.append(
        "  \(release.rehashed.count) recorded Rust functions have another hash in the release build (built with other settings), entered under the release build's name: \(TextFormatting.list(release.rehashed.map { Demangler.demangle($0.release) }))"
      )
    }
    if !release.placedCopies.isEmpty {
      lines.append(
        "  \(release.placedCopies.count) release-only \(release.placedCopies.count == 1 ? "copy" : "copies") of launch functions placed beside them: \(TextFormatting.list(release.placedCopies.map(Demangler.demangle)))"
      )
    }
    if !release.placedColdParts.isEmpty {
      lines.append(
        "  \(release.placedColdParts.count) cold \(release.placedColdParts.count == 1 ? "part" : "parts") of launch functions placed last (an instrumented build's trace cannot tell which ran): \(TextFormatting.list(release.placedColdParts.map(Demangler.demangle)))"
      )
    }
    return lines
  }
}

extension String {
  func leftPad(_ width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}
