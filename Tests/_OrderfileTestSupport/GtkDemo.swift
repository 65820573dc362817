import Foundation
import OrderfileSupport

/// The GTK3 app of Tests/Fixtures/gtkapp, built by its Makefile: `gtkdemo`, whose main only
/// calls into `libgtkdemo.so.0` (a link to the real file `libgtkdemo.so.0.0.0`), where the
/// app's code is, with constructors of its own; the library dlopens a plugin and starts a
/// short-lived helper process at launch. Its launch ends at `launchEnd`, from the first idle
/// callback after the window maps; then it runs until it is killed.
public struct GtkDemo: Sendable {
  /// The Makefile's output directory: objects, the library and its links, the executable.
  public let directory: String
  /// What the build printed on standard error (lld's warnings among it).
  public let buildMessages: String

  public static let fixture = PackagePaths.fixtures + "/gtkapp"
  /// The function that ends the launch (for `--until`).
  public static let launchEnd = "gtkdemo_launch_done"
  /// What the app prints when its launch has ended.
  public static let launchEndLine = "gtkdemo: launch done"
  /// The library's SONAME: the name the loader opens it by.
  public static let soname = "libgtkdemo.so.0"

  public var executable: String { directory + "/gtkdemo" }
  /// The library as the loader opens it: the SONAME link.
  public var library: String { directory + "/" + Self.soname }
  /// The library's real file, which the SONAME link points to.
  public var libraryRealFile: String { directory + "/" + Self.soname + ".0.0" }
  /// The plugin the library loads with dlopen at launch (in no DT_NEEDED list).
  public var plugin: String { directory + "/gtkdemo-plugins/libgtkdemo-plugin.so" }

  /// Builds the app into `directory` with swift's clang and lld: `-O2 -g`, one section per
  /// function; `orderLibrary` is an orderfile for the library's link only, `orderExecutable`
  /// one for the executable's, `orderPlugin` one for the plugin's. `extraCFlags` go to every
  /// compile (an instrumented build).
  public static func build(
    into directory: String, orderLibrary: String? = nil, orderExecutable: String? = nil, orderPlugin: String? = nil,
    extraCFlags: [String] = []
  ) throws -> GtkDemo {
    let result = try make(
      directory,
      [
        "ORDER_LIB=" + (orderLibrary ?? ""), "ORDER_EXE=" + (orderExecutable ?? ""),
        "ORDER_PLUGIN=" + (orderPlugin ?? ""),
      ] + (extraCFlags.isEmpty ? [] : ["EXTRA_CFLAGS=" + extraCFlags.joined(separator: " ")]))
    return GtkDemo(directory: directory, buildMessages: result.standardError)
  }

  private static let sharedBuild = Locked<GtkDemo?>(nil)

  /// The default layout, built once per test process into a directory of its own. Shared:
  /// relink into another directory (`relinked`) rather than changing it.
  public static func shared() throws -> GtkDemo {
    try sharedBuild.withLock { built in
      if let built { return built }
      let demo = try build(into: try RuntimeBuilder.keptDirectory("/tmp/orderfile-gtkdemo.XXXXXX"))
      built = demo
      return demo
    }
  }

  /// This build's objects linked again into `directory` with the given orderfiles: a relink,
  /// no compile (the objects keep their times, so make finds them up to date).
  public func relinked(
    into directory: String, orderLibrary: String? = nil, orderExecutable: String? = nil, orderPlugin: String? = nil
  ) throws -> GtkDemo {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let objects = try FileManager.default.contentsOfDirectory(atPath: self.directory).filter {
      $0.hasSuffix(".o") || $0 == "compile.flags"
    }
    try runChecked("cp", ["-p"] + objects.map { self.directory + "/" + $0 } + [directory])
    return try Self.build(
      into: directory, orderLibrary: orderLibrary, orderExecutable: orderExecutable, orderPlugin: orderPlugin)
  }

  /// Starts the app on `display` (with `environment` over the display's), its output in
  /// `work`. `launchEnded` on the result says when its launch is over.
  public func launch(
    on display: VirtualDisplay, environment: [String: String] = [:], in work: TemporaryDirectory
  ) throws -> Launch {
    try Launch(executable, on: display, environment: environment, in: work)
  }

  /// One run of an app that never exits: stop it with `stop()` (or release it).
  public final class Launch: @unchecked Sendable {
    public let process: BackgroundProcess
    /// The file the app writes its pid to when its launch ends (`GTKDEMO_READY_FILE`).
    public let readyFile: String

    /// Starts `command` (the app, or a command that runs it, such as `orderfile record -- app`)
    /// on `display`, with `GTKDEMO_READY_FILE` set.
    public init(
      _ executable: String, _ arguments: [String] = [], on display: VirtualDisplay,
      environment: [String: String] = [:], in work: TemporaryDirectory
    ) throws {
      readyFile = work.file("ready-\(UUID().uuidString.prefix(8))")
      var variables = display.environment
      variables["GTKDEMO_READY_FILE"] = readyFile
      for (key, value) in environment { variables[key] = value }
      process = try BackgroundProcess(executable, arguments, environment: variables, outputIn: work.path)
    }

    /// Waits for the end of the launch (the ready file); false after `timeout` or when the
    /// process ended first.
    public func waitForLaunchEnd(upTo timeout: Duration = .seconds(10)) -> Bool {
      let ready = readyFile
      return process.wait(upTo: timeout) { FileManager.default.fileExists(atPath: ready) }
    }

    /// The pid the app wrote at the end of its launch, once it has.
    public var appPID: pid_t? {
      (try? FileReading.text(atPath: readyFile)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    @discardableResult
    public func stop() -> (status: Int32, signal: Int32?) { process.stop() }
  }

  /// Why the app cannot be built and run here, or nil when it can.
  public static let unavailable: String? = {
    if let display = VirtualDisplay.unavailable { return display }
    guard ProcessRunner.resolve("make").hasPrefix("/") else { return "needs make to build the GTK app fixture" }
    let gtk = try? ProcessRunner.run("pkg-config", ["--exists", "gtk+-3.0"])
    guard gtk?.succeeded == true else {
      return "needs GTK 3's headers (pkg-config gtk+-3.0: apt-get install libgtk-3-dev, or run Scripts/setup-deps)"
    }
    return nil
  }()

  private static func make(_ directory: String, _ variables: [String]) throws -> ProcessResult {
    try runUnblocked("make", ["-s", "-j2", "-C", fixture, "OUT=" + directory, "CC=" + Toolchain.clang] + variables)
  }
}
