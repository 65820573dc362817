import Foundation
import OrderfileSupport
import OrderfileSymbolization

/// A verification as text for a terminal.
public struct VerificationTextRenderer: Renderer {
  public init() {}

  public func render(_ verification: Verification) -> String {
    var lines: [String] = []
    let linker = verification.linker.map { ", linked by \($0)" } ?? ""
    lines.append("binary \(verification.binary)\(linker)")
    lines.append(
      "order  \(verification.order) (\(verification.orderFormat.rawValue) format, \(verification.entries) entries)")
    lines.append(
      "present:            \(verification.present) of \(verification.entries) (\(TextFormatting.percent(verification.presentShare)))"
    )
    lines.append(
      "in order, adjacent: \(verification.inOrder) of \(verification.present) (\(TextFormatting.percent(verification.inOrderShare)))"
    )
    if !verification.missing.isEmpty {
      lines.append("not in the binary: " + verification.missing.map(Demangler.withLinkerName).joined(separator: ", "))
    }
    if !verification.firstMisplaced.isEmpty {
      lines.append("first entries out of place:")
      for entry in verification.firstMisplaced {
        let expected =
          entry.expectedAfter.map { "should follow \(Demangler.withLinkerName($0))" } ?? "should start the block"
        let actual = entry.actualAfter.map { ", follows \(Demangler.withLinkerName($0))" } ?? ""
        lines.append("  #\(entry.rank) \(Demangler.withLinkerName(entry.name)): \(expected)\(actual)")
      }
    }
    if let fixed = verification.fixedCode, !fixed.sections.isEmpty {
      lines.append("code no orderfile moves: \(fixed.sectionsSummary)")
    }
    if let tables = verification.loaderTables {
      lines.append("loader tables: " + Self.describe(tables))
    }
    for missing in verification.missingLoaderOptions ?? [] {
      lines.append(
        "loader option missing: \(missing.option): add \(missing.flags.joined(separator: " ")) (\(missing.reason))")
    }
    let verdict = verification.passed ? "PASS" : "FAIL"
    lines.append(
      "\(verdict) (\(Gate.minInOrder.option) \(TextFormatting.percent(verification.minInOrder)): present and in order)")
    lines.append(
      "(verify answers: did the link follow this orderfile? How much of the launch the orderfile holds is generate's match rate; the pages it touches, estimate --measure.)"
    )
    if let diagnosis = verification.diagnosis { lines.append("likely cause: \(diagnosis)") }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Relative relocations by how they are stored, and the hash tables.
  static func describe(_ tables: LoaderTables) -> String {
    let relocations =
      tables.packedRelative
      ? "RELR (\(tables.relativeInRELR) relative relocations packed, \(tables.relativeInRELA) left in RELA)"
      : "no RELR (\(tables.relativeInRELA) relative relocations in RELA)"
    let hashes = [tables.gnuHash ? "GNU" : nil, tables.sysvHash ? "System V" : nil].compactMap { $0 }
    return relocations + "; hash tables: " + (hashes.isEmpty ? "none" : hashes.joined(separator: " and "))
  }
}
