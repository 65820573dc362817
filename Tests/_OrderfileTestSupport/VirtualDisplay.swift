import Foundation
import OrderfileSupport

/// A private X display for GUI apps: Xvfb on a display number it picks itself, and a private
/// home, so an app starts headless and touches nothing of the user's. Stopped by `stop()` or
/// when released.
public final class VirtualDisplay: @unchecked Sendable {
  /// The display's number (`:N`).
  public let number: Int
  private let server: BackgroundProcess
  private let home: TemporaryDirectory

  /// Starts Xvfb and waits (at most 10 s) until it accepts clients.
  public init() throws {
    home = try TemporaryDirectory("orderfile-display")
    // -displayfd: Xvfb takes the first free display number and writes it to descriptor 1 once
    // it listens, so two tests (or two users) never race for one number.
    server = try BackgroundProcess(
      "Xvfb", ["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"], outputIn: home.path)
    let numberFile = server.standardOutput
    let started = server.wait(upTo: .seconds(10)) {
      ((try? FileReading.text(atPath: numberFile)) ?? "").hasSuffix("\n")
    }
    let written = ((try? FileReading.text(atPath: numberFile)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    guard started, let number = Int(written) else {
      server.stop()
      throw TestSupportError("Xvfb did not start a display within 10 s:\n\(server.output)")
    }
    self.number = number
    try FileManager.default.createDirectory(
      atPath: home.file("runtime"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
  }

  deinit { stop() }

  /// What a GTK app needs to start on this display headless: no accessibility bus, settings
  /// in memory (no dconf), and a home and runtime directory of its own.
  public var environment: [String: String] {
    [
      "DISPLAY": ":\(number)", "NO_AT_BRIDGE": "1", "GSETTINGS_BACKEND": "memory", "HOME": home.path,
      "XDG_RUNTIME_DIR": home.file("runtime"), "XDG_CONFIG_HOME": home.file("config"),
      "XDG_CACHE_HOME": home.file("cache"), "XDG_DATA_HOME": home.file("data"),
    ]
  }

  public func stop() { server.stop() }

  /// Why GUI app tests cannot run here, or nil when they can. Decided from files alone: this
  /// runs while the tests are being discovered.
  public static let unavailable: String? = {
    ProcessRunner.resolve("Xvfb").hasPrefix("/")
      ? nil : "needs Xvfb to run a GUI app headless (apt-get install xvfb, or run Scripts/setup-deps)"
  }()
}
