import Foundation
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
  @Test("the GitHub Actions workflow is valid YAML: scheduled, runs the script, posts the report")
  func githubActions() throws {
    let workflow = try parseYAML("github-actions.yml")
    let triggers = try #require((workflow["on"] ?? workflow["true"]) as? [String: Any])
    let schedule = try #require(triggers["schedule"] as? [[String: Any]])
    #expect(isCron(schedule.first?["cron"] as? String))
    let jobs = try #require(workflow["jobs"] as? [String: [String: Any]])
    let job = try #require(jobs["refresh"])
    #expect(job["runs-on"] is String)
    let steps = try #require(job["steps"] as? [[String: Any]])
    #expect(steps.allSatisfy { $0["run"] is String || $0["uses"] is String })
    #expect(steps.contains { ($0["run"] as? String)?.contains("Scripts/regenerate-orderfile --report") == true })
    let pullRequest = try #require(
      steps.first { ($0["uses"] as? String)?.hasPrefix("peter-evans/create-pull-request") == true })
    let with = try #require(pullRequest["with"] as? [String: Any])
    #expect((with["body-path"] as? String)?.hasSuffix("orderfile-report.md") == true)
  }

  @Test("the GitLab CI job is valid YAML: scheduled, runs the script, posts the report")
  func gitlabCI() throws {
    let pipeline = try parseYAML("gitlab-ci.yml")
    let job = try #require(pipeline["refresh-orderfile"] as? [String: Any])
    let rules = try #require(job["rules"] as? [[String: Any]])
    #expect((rules.first?["if"] as? String)?.contains("$CI_PIPELINE_SOURCE == \"schedule\"") == true)
    let script = try #require(job["script"] as? [String])
    #expect(script.first == "Scripts/regenerate-orderfile --report orderfile-report.md")
    #expect(script.contains { $0.contains("merge_requests") && $0.contains("orderfile-report.md") })
    let artifacts = try #require(job["artifacts"] as? [String: Any])
    #expect((artifacts["paths"] as? [String])?.contains("orderfile-report.md") == true)
  }

  @Test("the sample configuration is valid shell that sets the script's variables")
  func sampleConfiguration() throws {
    let path = PackagePaths.root + "/Examples/ci/orderfile-regen.conf"
    let result = try runChecked(
      "/bin/bash",
      [
        "-c", "set -eu; . \"$1\"; printf '%s\\n' \"$REGEN_RUNS\" \"$REGEN_ORDER_DIR\" \"${REGEN_SCENARIOS%%$'\\n'*}\"",
        "conf", path,
      ])
    let lines = result.standardOutput.split(separator: "\n")
    #expect(lines.first == "10")
    #expect(lines.dropFirst().first == "orderfiles")
    #expect(lines.last?.hasPrefix("cold 3 ") == true)
  }
}
