import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// A git repository holding the small CMake project of `Tests/Fixtures/daily` (an executable
/// over a static library) with its `orderfile.yml`, for the installed `orderfile regenerate`.
struct DailyProject {
  let directory: TemporaryDirectory
  var path: String { directory.path }

  init() throws {
    directory = try TemporaryDirectory("orderfile-daily")
    for name in ["CMakeLists.txt", "core.c", "main.c", "orderfile.yml"] {
      try FileManager.default.copyItem(atPath: PackagePaths.fixtures + "/daily/" + name, toPath: directory.file(name))
    }
    try AtomicFile.write(".orderfile/\nbuild/\n", to: directory.file(".gitignore"))
    try git("init", "-q", "-b", "main")
    try git("add", "-A")
    try git("commit", "-q", "-m", "The project")
  }

  @discardableResult
  func git(_ arguments: String...) throws -> String {
    try runChecked(
      "/usr/bin/git",
      ["-C", path, "-c", "user.name=Test", "-c", "user.email=test@example.invalid"] + arguments
    ).standardOutput
  }

  func read(_ name: String) throws -> String { try FileReading.text(atPath: directory.file(name)) }

  func write(_ name: String, _ text: String) throws { try AtomicFile.write(text, to: directory.file(name)) }

  /// The environment the configured build needs besides the user's: the C compiler beside lld.
  static var compilerVariables: String { "CC=\(Toolchain.clang)" }
}

/// The JSON report of a run, as a dictionary.
private func json(_ text: String) throws -> [String: Any] {
  try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
}

@Suite("orderfile regenerate, installed, on a CMake project in git", .serialized)
struct RegenerateCommandTests {
  @Test("first run replaces the orderfiles, second says no change, a code change reports moves, decay and pages")
  func dailyRuns() throws {
    let tree = try InstalledTree.shared.get()
    let project = try DailyProject()
    let command = "\(DailyProject.compilerVariables) orderfile regenerate --json"

    // 1. No committed orderfile: the regenerated one is written.
    let first = try json(try tree.run(command, in: project.path))
    #expect(first["outcome"] as? String == "replaced")
    let order = try project.read("orderfiles/app.order").split(separator: "\n").map(String.init)
    #expect(
      order.filter(["main", "parse_config", "open_window", "render_frame"].contains)
        == ["main", "parse_config", "open_window", "render_frame"], "\(order)")
    #expect(!order.contains("cold_path") && !order.contains { $0.hasPrefix("filler_") }, "\(order)")
    let body = try project.read(".orderfile/report.md")
    #expect(body.hasPrefix("## Launch orderfile refresh\n\nThe launch order changed"), "\(body)")
    #expect(body.contains("| module | measured pages 4 KiB | 16 KiB | simulated 4 KiB | 16 KiB |"), "\(body)")
    let firstModule = try #require((first["modules"] as? [[String: Any]])?.first)
    // The relinked binary follows the new order, and it needs fewer launch pages than the
    // binary linked in link order, where a page of filler sits between launch functions.
    let verified = try #require(firstModule["verified"] as? [String: Any])
    #expect(verified["passed"] as? Bool == true)
    let pages = try #require((firstModule["pages"] as? [[String: Any]])?.first?["pages"] as? [String: Any])
    #expect((pages["delta"] as? Int ?? 0) < 0, "\(pages)")
    // The page probe installed beside the tool ran both binaries: the relinked one really
    // touches fewer pages, and about as many as simulated.
    let measured = try #require(
      (firstModule["measuredPages"] as? [[String: Any]])?.first?["pages"] as? [String: Any], "\(firstModule)")
    let (measuredBase, measuredHead) = (measured["base"] as? Int ?? 0, measured["head"] as? Int ?? 0)
    #expect(measuredHead > 0 && measuredHead < measuredBase, "\(measured)")
    #expect(abs(measuredHead - (pages["head"] as? Int ?? 0)) <= 3, "measured \(measured), simulated \(pages)")
    try project.git("add", "orderfiles")
    try project.git("commit", "-q", "-m", "Launch orderfile")

    // 2. Nothing changed: no change, nothing written, exit 0.
    let second = try tree.run("\(DailyProject.compilerVariables) orderfile regenerate", in: project.path)
    #expect(second.hasPrefix("no change: the committed orderfiles in orderfiles are up to date"), "\(second)")
    #expect(try project.git("status", "--porcelain").isEmpty)

    // 3. A code change that moves launch code: open_window becomes show_window, called
    // before parse_config.
    try project.write(
      "core.c", try project.read("core.c").replacingOccurrences(of: "open_window", with: "show_window"))
    try project.write(
      "main.c",
      try project.read("main.c").replacingOccurrences(of: "open_window", with: "show_window")
        .replacingOccurrences(
          of: "render_frame(show_window(parse_config(argc)))", with: "parse_config(render_frame(show_window(argc)))"))
    try project.git("commit", "-q", "-am", "Show the window first")
    let third = try json(try tree.run(command, in: project.path))
    #expect(third["outcome"] as? String == "replaced")
    let module = try #require((third["modules"] as? [[String: Any]])?.first)
    let summary = try #require((module["diff"] as? [String: Any])?["summary"] as? [String: Any])
    #expect(summary["added"] as? Int == 1 && summary["removed"] as? Int == 1, "\(summary)")
    #expect((summary["moved"] as? Int ?? 0) >= 1, "\(summary)")
    let decay = try #require(module["decay"] as? [String: Any])
    #expect(decay["goneEntries"] as? Int == 1 && decay["gone"] as? [String] == ["open_window"], "\(decay)")
    // The stale orderfile left show_window in link order, away from the rest.
    let changed = try #require((module["pages"] as? [[String: Any]])?.first?["pages"] as? [String: Any])
    #expect((changed["delta"] as? Int ?? 0) < 0, "\(changed)")
    let report = try project.read(".orderfile/report.md")
    #expect(report.contains("| [NEW] | `show_window` |") && report.contains("| [DEL] | `open_window` |"), "\(report)")
    #expect(report.contains("gone since the committed orderfile: `open_window`"), "\(report)")
  }

  @Test("an instrumented build, when the configuration asks for one, is recorded instead of the release binary")
  func instrumented() throws {
    let tree = try InstalledTree.shared.get()
    let project = try DailyProject()
    try project.write(
      "orderfile.yml",
      try project.read("orderfile.yml") + """
        instrumented:
          build: >-
            cmake -S . -B build-instrumented -DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="$ORDERFILE_CFLAGS"
            -DCMAKE_EXE_LINKER_FLAGS="$ORDERFILE_LDFLAGS" >/dev/null && cmake --build build-instrumented
          binaries:
            app: build-instrumented/app

        """)
    let report = try json(
      try tree.run("\(DailyProject.compilerVariables) orderfile regenerate --json", in: project.path))
    #expect(report["recorded"] as? String == "instrumented")
    #expect(report["outcome"] as? String == "replaced")
    let order = try project.read("orderfiles/app.order").split(separator: "\n").map(String.init)
    #expect(order == ["main", "parse_config", "open_window", "render_frame"], "\(order)")
    // The instrumented build's hooks ran: its binary calls them, the release one does not.
    let hooks = try tree.run("nm -u build-instrumented/app; nm -u build/app", in: project.path)
    #expect(hooks.components(separatedBy: "__cyg_profile_func_enter").count == 2, "\(hooks)")
  }

  @Test("installed with the tool: its manual page and completions")
  func installed() throws {
    let tree = try InstalledTree.shared.get()
    let manual = try FileReading.text(atPath: tree.root + "/share/man/man1/orderfile.regenerate.1")
    #expect(manual.contains("orderfile.yml") && manual.contains("Fl -check"), "\(manual.prefix(2000))")
    let completion = try FileReading.text(atPath: tree.root + "/share/bash-completion/completions/orderfile")
    #expect(completion.contains("regenerate"))
  }

  @Test("a configuration error fails before building, naming the line")
  func configurationError() throws {
    let tree = try InstalledTree.shared.get()
    let project = try DailyProject()
    try project.write(
      "orderfile.yml",
      try project.read("orderfile.yml").replacingOccurrences(of: "command: [app, one, two]", with: "weight: 2"))
    let result = try ProcessRunner.run(
      "/usr/bin/env", ["-i"] + tree.environment.map { "\($0.key)=\($0.value)" } + ["orderfile", "regenerate"],
      currentDirectory: project.path)
    #expect(result.status == 65)
    #expect(
      result.standardError
        == "orderfile: error: orderfile.yml:11: scenarios[1]: scenario 'with-arguments' has no command: give `command: [program, arguments…]`\n",
      "\(result.standardError)")
    #expect(!FileManager.default.fileExists(atPath: project.directory.file("build")), "it built")
  }
}
