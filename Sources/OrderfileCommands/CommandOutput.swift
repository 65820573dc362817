import Foundation
import OrderfileSupport

/// What a command prints, in order, and the status it ends with.
///
/// Commands return it and the executable only writes it out, so everything a command says
/// can be tested without running the tool. stdout carries the report (or an orderfile),
/// stderr the diagnostics, each line prefixed with `orderfile:`.
public struct CommandOutput: Sendable, Equatable {
  public enum Stream: Sendable, Equatable {
    case standardOutput, standardError
  }

  /// One piece of text for one stream.
  public struct Write: Sendable, Equatable {
    public var stream: Stream
    public var text: String
  }

  /// Everything to write, in order.
  public private(set) var writes: [Write] = []
  /// How the command ends.
  public private(set) var status: ExitStatus = .success

  public init() {}

  /// The output of a command that failed with `error`: one error line and the error's status.
  public init(error: any Error) {
    fail((error as? LocalizedError)?.errorDescription ?? "\(error)", status: .of(error))
  }

  /// A document (a report, an orderfile) on stdout, as it is.
  public mutating func print(_ document: String) {
    writes.append(Write(stream: .standardOutput, text: document))
  }

  /// A document on stderr, as it is: a report that must stay off stdout because the
  /// orderfile itself is there.
  public mutating func printToStandardError(_ document: String) {
    writes.append(Write(stream: .standardError, text: document))
  }

  /// `orderfile: <message>` on stderr.
  public mutating func note(_ message: String) {
    writes.append(Write(stream: .standardError, text: "orderfile: \(message)\n"))
  }

  /// `orderfile: warning: <message>` on stderr.
  public mutating func warning(_ message: String) {
    writes.append(Write(stream: .standardError, text: "orderfile: warning: \(message)\n"))
  }

  /// `orderfile: error: <message>` on stderr, and the command ends with `status`.
  public mutating func fail(_ message: String, status: ExitStatus) {
    writes.append(Write(stream: .standardError, text: "orderfile: error: \(message)\n"))
    self.status = status
  }

  /// Ends the command with `status` without another line (the recorded program's own).
  public mutating func end(with status: ExitStatus) {
    self.status = status
  }

  /// Everything written to stdout.
  public var standardOutput: String { text(of: .standardOutput) }
  /// Everything written to stderr.
  public var standardError: String { text(of: .standardError) }

  private func text(of stream: Stream) -> String {
    writes.filter { $0.stream == stream }.map(\.text).joined()
  }

  /// Writes every piece to its stream, in order: what the executable does with the output.
  public func emit() {
    for write in writes {
      let handle = write.stream == .standardOutput ? FileHandle.standardOutput : FileHandle.standardError
      handle.write(Data(write.text.utf8))
    }
  }
}
