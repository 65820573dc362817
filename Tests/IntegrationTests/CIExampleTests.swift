import Foundation
import OrderfileSupport
import Testing
import _OrderfileTestSupport

/// Parses a YAML file with PyYAML (`safe_load`) and prints it as JSON. YAML 1.1 reads a bare
/// `on` key as the boolean true, so GitHub's `on:` arrives as the key "true".
private let yamlToJSON = """
  import json, sys, yaml
  with open(sys.argv[1], encoding="utf-8") as file:
      document = yaml.safe_load(file.read())
  print(json.dumps(document, default=str))
  """

private func parseYAML(_ name: String) throws -> [String: Any] {
  try Python.require(module: "yaml", package: "PyYAML")
  let text = try String(contentsOfFile: PackagePaths.root + "/Examples/ci/" + name, encoding: .utf8)
  let json = try Python.run(yamlToJSON, input: text)
  return try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] ?? [:]
}

/// Whether a cron expression has the five fields both forges expect.
private func isCron(_ text: String?) -> Bool {
  guard let fields = text?.split(separator: " ") else { return false }
  return fields.count == 5 && fields.allSatisfy { $0.allSatisfy { "0123456789*/,-".contains($0) } }
}

@Suite("CI examples")
struct CIExampleTests {
  @Test("the nightly GitHub workflow: scheduled, installs the .deb, runs the command, opens the pull request")
  func githubActions() throws {
    let workflow = try parseYAML("github-actions.yml")
    let triggers = try #require((workflow["on"] ?? workflow["true"]) as? [String: Any])
    let schedule = try #require(triggers["schedule"] as? [[String: Any]])
    #expect(isCron(schedule.first?["cron"] as? String))
    let jobs = try #require(workflow["jobs"] as? [String: [String: Any]])
    let steps = try #require(jobs["refresh"]?["steps"] as? [[String: Any]])
    #expect(steps.allSatisfy { $0["run"] is String || $0["uses"] is String })
    #expect(steps.contains { ($0["run"] as? String)?.contains("dpkg-deb -x") == true })
    #expect(steps.contains { ($0["run"] as? String)?.hasPrefix("orderfile regenerate --config") == true })
    #expect(
      !steps.contains { ($0["run"] as? String)?.contains("Scripts/") == true }, "a user's repository has no Scripts/")
    let pullRequest = try #require(
      steps.first { ($0["uses"] as? String)?.hasPrefix("peter-evans/create-pull-request") == true })
    let with = try #require(pullRequest["with"] as? [String: Any])
    #expect((with["body-path"] as? String)?.hasSuffix("orderfile-report.md") == true)
  }

  @Test("the GitLab CI job: scheduled, installs the .deb, runs the command, posts the report")
  func gitlabCI() throws {
    let pipeline = try parseYAML("gitlab-ci.yml")
    let job = try #require(pipeline["refresh-orderfile"] as? [String: Any])
    let rules = try #require(job["rules"] as? [[String: Any]])
    #expect((rules.first?["if"] as? String)?.contains("$CI_PIPELINE_SOURCE == \"schedule\"") == true)
    let before = try #require(job["before_script"] as? [String])
    #expect(before.contains { $0.contains("/tmp/orderfile.deb") && $0.contains("apt-get install") })
    let script = try #require(job["script"] as? [String])
    #expect(script.first == "orderfile regenerate --config \"$ORDERFILE_CONFIG\" --report orderfile-report.md")
    #expect(script.contains { $0.contains("merge_requests") && $0.contains("orderfile-report.md") })
    let artifacts = try #require(job["artifacts"] as? [String: Any])
    #expect((artifacts["paths"] as? [String])?.contains("orderfile-report.md") == true)
  }

  @Test("the sample configuration is one the tool reads")
  func sampleConfiguration() throws {
    let tree = try InstalledTree.shared.get()
    let directory = try TemporaryDirectory("orderfile-sample-configuration")
    try FileManager.default.copyItem(
      atPath: PackagePaths.root + "/Examples/ci/orderfile.yml", toPath: directory.file("orderfile.yml"))
    // Checked whole before anything runs: the build then fails (there is no project here),
    // which is the first thing that runs.
    let result = try ProcessRunner.run(
      "/usr/bin/env", ["-i"] + tree.environment.map { "\($0.key)=\($0.value)" } + ["orderfile", "regenerate", "-q"],
      currentDirectory: directory.path)
    #expect(result.status == 2, "\(result.standardError)")
    #expect(result.standardError.hasPrefix("orderfile: error: the build command failed"), "\(result.standardError)")
  }
}

/// The GitHub templates' steps, run in order against a user's repository (the CMake project
/// of RegenerateCommandTests) with orderfile installed from the .deb of Scripts/package-deb.
/// Stubbed: the pull-request action (recorded, not run), `gh` (records its arguments),
/// `sudo apt-get` (run with --simulate: every package must already be installed).
@Suite("CI templates run against a user's repository", .serialized)
struct CITemplateRunTests {
  /// The .deb, made once, in a directory kept until the test process exits.
  static let package: Result<(directory: TemporaryDirectory, path: String), any Error> = Result {
    let directory = try TemporaryDirectory("orderfile-deb")
    let result = try ProcessRunner.run(PackagePaths.root + "/Scripts/package-deb", [directory.path])
    guard result.succeeded else {
      throw TestSupportError("Scripts/package-deb failed: \(result.standardError.suffix(2000))")
    }
    return (directory, result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
  }

  struct Run {
    var status: Int32
    var output: String
    var stubs: [[String: Any]]
  }

  /// Runs `job` of `workflow` in `project` with the stub commands first on PATH.
  static func run(_ workflow: String, job: String, in project: DailyProject) throws -> Run {
    try Python.require(module: "yaml", package: "PyYAML")
    let deb = try package.get().path
    let stubs = try TemporaryDirectory("orderfile-ci-stubs")
    try AtomicFile.write(
      "#!/bin/sh\nif [ \"$1\" = apt-get ]; then shift; exec apt-get --simulate \"$@\"; fi\nexec \"$@\"\n",
      to: stubs.file("sudo"))
    try AtomicFile.write(
      "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"\(stubs.file("gh.log"))\"\nwhile [ $# -gt 0 ]; do [ \"$1\" = --body-file ] && cat \"$2\" >> \"\(stubs.file("gh.log"))\"; shift; done\n",
      to: stubs.file("gh"))
    for name in ["sudo", "gh"] { chmod(stubs.file(name), 0o755) }
    let overrides: [String: String] = [
      "ORDERFILE_DEB_URL": "file://" + deb, "BUILD_PACKAGES": "cmake", "CC": Toolchain.clang,
      "PATH": stubs.path + ":/usr/local/bin:/usr/bin:/bin", "GITHUB_BASE_REF": "main",
    ]
    let result = try ProcessRunner.run(
      "python3",
      [
        PackagePaths.fixtures + "/ci/run-workflow.py", PackagePaths.root + "/Examples/ci/" + workflow, job,
        project.path,
        stubs.file("stubs.log"), String(decoding: try JSONSerialization.data(withJSONObject: overrides), as: UTF8.self),
      ])
    let log = (try? FileReading.text(atPath: stubs.file("stubs.log"))) ?? ""
    let records = log.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    let gh = (try? FileReading.text(atPath: stubs.file("gh.log"))) ?? ""
    return Run(status: result.status, output: result.standardOutput + result.standardError + gh, stubs: records)
  }

  @Test("GitLab nightly: installs the package, regenerates, pushes the branch and opens the merge request")
  func gitlabNightly() throws {
    try Python.require(module: "yaml", package: "PyYAML")
    let deb = try Self.package.get().path
    let project = try DailyProject()
    let stubs = try TemporaryDirectory("orderfile-gitlab-stubs")
    let log = stubs.file("stubs.log")
    // apt-get as the runner's root would run it, without touching this machine: update does
    // nothing; install unpacks a .deb into STUB_ROOT and checks every other package, and the
    // .deb's dependencies, with --simulate (so they must all be installed here).
    try AtomicFile.write(
      """
      #!/bin/sh
      [ "$1" = update ] && exit 0
      packages=""
      for argument in "$@"; do
        case "$argument" in
          *.deb) dpkg-deb -x "$argument" "$STUB_ROOT"
                 packages="$packages $(dpkg-deb -f "$argument" Depends | sed 's/([^)]*)//g; s/,/ /g')" ;;
          install | -*) ;;
          *) packages="$packages $argument" ;;
        esac
      done
      exec /usr/bin/apt-get install --simulate $packages

      """, to: stubs.file("apt-get"))
    // curl fetches files; the forge's API is recorded, with no merge request open yet.
    try AtomicFile.write(
      """
      #!/bin/sh
      case "$*" in *file://*) exec /usr/bin/curl "$@" ;; esac
      printf 'curl %s\\n' "$*" >> "$STUB_LOG"
      case "$*" in *state=opened*) echo '[]' ;; *) echo '{}' ;; esac

      """, to: stubs.file("curl"))
    try AtomicFile.write(
      """
      #!/bin/sh
      [ "$1" = push ] && { printf 'git %s\\n' "$*" >> "$STUB_LOG"; exit 0; }
      exec /usr/bin/git "$@"

      """, to: stubs.file("git"))
    for name in ["apt-get", "curl", "git"] { chmod(stubs.file(name), 0o755) }
    let root = stubs.file("root")
    let variables: [String: String] = [
      "ORDERFILE_DEB_URL": "file://" + deb, "BUILD_PACKAGES": "cmake", "CC": Toolchain.clang,
      "PATH": "\(stubs.path):\(root)/usr/bin:/usr/local/bin:/usr/bin:/bin", "STUB_ROOT": root, "STUB_LOG": log,
      "CI_PIPELINE_SOURCE": "schedule", "ORDERFILE_REFRESH": "1", "CI_SERVER_HOST": "gitlab.example.com",
      "CI_PROJECT_PATH": "group/app", "CI_API_V4_URL": "https://gitlab.example.com/api/v4", "CI_PROJECT_ID": "42",
      "CI_DEFAULT_BRANCH": "main", "ORDERFILE_BOT_TOKEN": "stub-token",
    ]
    let result = try ProcessRunner.run(
      "python3",
      [
        PackagePaths.fixtures + "/ci/run-gitlab-job.py", PackagePaths.root + "/Examples/ci/gitlab-ci.yml",
        "refresh-orderfile", project.path,
        String(decoding: try JSONSerialization.data(withJSONObject: variables), as: UTF8.self),
      ])
    let output = result.standardOutput + result.standardError
    #expect(result.status == 0, "\(output)")
    #expect(output.contains("updated 1 orderfile in orderfiles"), "\(output)")
    #expect(output.contains("opened a merge request from orderfile/refresh"), "\(output)")
    let calls = (try? FileReading.text(atPath: log)) ?? ""
    #expect(
      calls.contains(
        "git push --force https://oauth2:stub-token@gitlab.example.com/group/app.git HEAD:refs/heads/orderfile/refresh"),
      "\(calls)")
    #expect(calls.contains("--request POST") && calls.contains("## Launch orderfile refresh"), "\(calls)")
    let committed = try project.git("show", "--name-only", "--format=%s", "orderfile/refresh")
    #expect(committed == "Refresh the launch orderfile\n\norderfiles/app.order\n", "\(committed)")
  }

  @Test("nightly: installs the package, regenerates, and the pull request gets the orderfiles and the body")
  func nightly() throws {
    let project = try DailyProject()
    let run = try Self.run("github-actions.yml", job: "refresh", in: project)
    #expect(run.status == 0, "\(run.output)")
    #expect(run.output.contains("0 newly installed"), "every package is on this machine: \(run.output)")
    #expect(run.output.contains("updated 1 orderfile in orderfiles"), "\(run.output)")
    // What the pull-request action would commit and post.
    #expect(try project.git("status", "--porcelain", "--", "orderfiles") == "?? orderfiles/\n")
    let action = try #require(run.stubs.first)
    let with = try #require(action["with"] as? [String: String])
    #expect(with["add-paths"] == "orderfiles/*")
    let body = try FileReading.text(atPath: try #require(with["body-path"]))
    #expect(body.hasPrefix("## Launch orderfile refresh"), "\(body)")
  }

  @Test("pull request: compares the branch with the base's orderfiles and posts the report")
  func pullRequest() throws {
    let project = try DailyProject()
    // The base branch has an orderfile; the branch moves launch code.
    let nightly = try Self.run("github-actions.yml", job: "refresh", in: project)
    #expect(nightly.status == 0, "\(nightly.output)")
    try project.git("add", "orderfiles")
    try project.git("commit", "-q", "-m", "Launch orderfile")
    try project.git("update-ref", "refs/remotes/origin/main", "HEAD")
    try project.git("checkout", "-q", "-b", "feature")
    try project.write("main.c", try project.read("main.c").replacingOccurrences(of: "open_window", with: "show_window"))
    try project.write("core.c", try project.read("core.c").replacingOccurrences(of: "open_window", with: "show_window"))
    try project.git("commit", "-q", "-am", "Rename")

    let run = try Self.run("github-pull-request.yml", job: "check", in: project)
    #expect(run.status == 0, "\(run.output)")
    #expect(run.output.contains("changed: 1 orderfile differ from those in"), "\(run.output)")
    #expect(run.output.contains("pr comment 7 --edit-last --body-file"), "\(run.output)")
    #expect(run.output.contains("| [NEW] | `show_window` |"), "the posted report: \(run.output)")
    // --check leaves the branch's orderfiles alone.
    #expect(try project.git("status", "--porcelain").isEmpty)

    // A branch whose relink drops the orderfile: its launch touches more pages than the
    // shipped layout. The report is still posted, then the job fails.
    try project.write(
      "orderfile.yml",
      try project.read("orderfile.yml").replacingOccurrences(
        of: "-DORDER_DIR=\"$ORDERFILE_NEW_DIR\"", with: "-DORDER_DIR="))
    try project.git("commit", "-q", "-am", "Relink without the orderfile")
    let regressed = try Self.run("github-pull-request.yml", job: "check", in: project)
    #expect(regressed.status == 1, "\(regressed.output)")
    #expect(regressed.output.contains("gate max-page-growth failed for module 'app'"), "\(regressed.output)")
    #expect(regressed.output.contains("pr comment 7 --edit-last --body-file"), "\(regressed.output)")
    #expect(regressed.output.contains("**A gate failed**"), "the posted report: \(regressed.output)")
    #expect(regressed.output.contains("::step 6 failed with status 1"), "the last step fails: \(regressed.output)")
  }
}
