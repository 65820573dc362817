import Foundation
import OrderfileSupport
import OrderfileTrace
import Testing
import _OrderfileTestSupport

/// A program that makes 100 first calls before main and 100 in it, and starts itself again as a
/// child (posix_spawn) that makes 100 others in its main, then waits for it.
private let spawning = """
  #include <spawn.h>
  #include <string.h>
  #include <sys/wait.h>
  extern char **environ;
  #define F(n) __attribute__((noinline)) int f##n(int x) { return x * 3 + n; }
  #define T(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
  #define H(n) T(n##0) T(n##1) T(n##2) T(n##3) T(n##4) T(n##5) T(n##6) T(n##7) T(n##8) T(n##9)
  H(1) H(2) H(3)
  #define C(n) s += f##n(s);
  #define CT(n) C(n##0) C(n##1) C(n##2) C(n##3) C(n##4) C(n##5) C(n##6) C(n##7) C(n##8) C(n##9)
  #define CH(n) CT(n##0) CT(n##1) CT(n##2) CT(n##3) CT(n##4) CT(n##5) CT(n##6) CT(n##7) CT(n##8) CT(n##9)
  volatile int s;
  __attribute__((constructor)) static void early(void) { CH(1) }
  int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "child") == 0) { CH(3) return 0; }
    CH(2)
    pid_t pid;
    char *args[] = {argv[0], "child", 0};
    if (posix_spawn(&pid, argv[0], 0, 0, args, environ) != 0) return 1;
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  """

private func json(_ text: String) throws -> [String: Any] {
  try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
}

/// report --json's phases of `trace`: [name: (start, end)] in ns.
private func phases(_ trace: String) throws -> [String: [Int]] {
  let run = try ProcessRunner.run(PackagePaths.orderfileExecutable, ["report", trace, "--json"])
  #expect(run.succeeded, "\(run.standardError)")
  let phases = try json(run.standardOutput)["phases"] as? [[String: Any]] ?? []
  return Dictionary(
    phases.map {
      ($0["name"] as? String ?? "", [$0["startNanoseconds"] as? Int ?? -1, $0["endNanoseconds"] as? Int ?? -1])
    }, uniquingKeysWith: { first, _ in first })
}

@Suite("record --timing-launch: a second launch for report's times", .serialized)
struct TimingLaunchCLITests {
  let work: TemporaryDirectory
  let program: String

  init() throws {
    work = try TemporaryDirectory("orderfile-timing")
    try spawning.write(toFile: work.file("spawning.c"), atomically: true, encoding: .utf8)
    program = work.file("spawning")
    try runChecked(Toolchain.clang, ["-O1", "-g", work.file("spawning.c"), "-o", program])
  }

  func record(_ extra: [String]) throws -> ProcessResult {
    try ProcessRunner.run(
      PackagePaths.orderfileExecutable,
      ["record", "--recorder", "in-process"] + extra + ["-o", work.file("t.trace"), "--", program],
      environment: ["ORDERFILE_RUNTIME_DIR": try RuntimeBuilder.libraryDirectory()])
  }

  func traces(_ prefix: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: work.path).filter {
      $0.hasPrefix(prefix + ".") && $0.dropFirst(prefix.count + 1).allSatisfy(\.isNumber)
    }.map(work.file)
  }

  @Test(
    "the timing launch traps only each process's first call and main, and report shows its phases for the program and its child"
  )
  func phasesFromTimingLaunch() throws {
    let run = try record(["--timing-launch"])
    #expect(run.succeeded, "\(run.standardError)")
    #expect(run.standardError.contains("timing launch, trapping 2 functions"), "\(run.standardError)")
    let timing = work.file("t.trace.timing")
    let (children, timedChildren) = (try traces("t.trace"), try traces("t.trace.timing"))
    try #require(children.count == 1 && timedChildren.count == 1, "\(children) \(timedChildren)")

    for (recorded, timed) in [(work.file("t.trace"), timing), (children[0], timedChildren[0])] {
      // The timing launch called what the recording did, but trapped two functions only.
      let trace = try TraceReader.read(path: timed)
      #expect(trace.records.count == 2, "\(timed): \(trace.records.count) first calls")
      #expect(try TraceReader.read(path: recorded).records.count >= 200)
      // Its phases are the report's, to the nanosecond the warp rounds to.
      let shown = try phases(recorded)
      let own = try phases(timed)
      #expect(Set(shown.keys) == ["process start → first hook", "first hook → main", "main → exit"])
      #expect(Set(own.keys) == Set(shown.keys))
      for (name, span) in own {
        let other = shown[name] ?? []
        #expect(other.count == 2 && zip(other, span).allSatisfy { abs($0 - $1) <= 1 }, "\(name): \(other) \(span)")
      }
      let report = try ProcessRunner.run(PackagePaths.orderfileExecutable, ["report", recorded, "--json"])
      let overhead = try json(report.standardOutput)["recorderOverhead"] as? [String: Any]
      let source = overhead?["timingLaunch"] as? [String: Any]
      #expect(source?["trace"] as? String == timed)
      // main at least; the first call too, unless the first hook is the recorder's start.
      #expect((1...2).contains(source?["anchors"] as? Int ?? 0), "\(source ?? [:])")
      // --own-times: the recording's own times, the timing launch named nowhere.
      let ownTimes = try ProcessRunner.run(
        PackagePaths.orderfileExecutable, ["report", recorded, "--own-times", "--json"])
      let ownOverhead = try json(ownTimes.standardOutput)["recorderOverhead"] as? [String: Any]
      #expect(ownOverhead != nil && ownOverhead?["timingLaunch"] == nil, "\(ownTimes.standardOutput.prefix(400))")
      #expect(!ownTimes.standardOutput.contains(".timing"))
    }
    let text = try ProcessRunner.run(PackagePaths.orderfileExecutable, ["report", work.file("t.trace")])
    #expect(text.standardOutput.contains("times from the timing launch \(timing)"), "\(text.standardOutput)")
  }

  @Test("a recording without --timing-launch removes an earlier one's, and its report shows its own times")
  func staleTimingLaunchRemoved() throws {
    #expect(try record(["--timing-launch"]).succeeded)
    #expect(FileManager.default.fileExists(atPath: work.file("t.trace.timing")))
    let run = try record([])
    #expect(run.succeeded, "\(run.standardError)")
    #expect(!FileManager.default.fileExists(atPath: work.file("t.trace.timing")))
    #expect(try traces("t.trace.timing").isEmpty)
    let report = try ProcessRunner.run(PackagePaths.orderfileExecutable, ["report", work.file("t.trace"), "--json"])
    let overhead = try json(report.standardOutput)["recorderOverhead"] as? [String: Any]
    #expect(overhead != nil && overhead?["timingLaunch"] == nil)
  }

  @Test("with --until the timing launch ends where the recording's window did, and the report's phases are its")
  func untilKept() throws {
    let run = try record(["--timing-launch", "--until", "f250"])
    #expect(run.succeeded, "\(run.standardError)")
    let recorded = try TraceReader.read(path: work.file("t.trace"))
    let timed = try TraceReader.read(path: work.file("t.trace.timing"))
    #expect(recorded.header.windowReason == .startupComplete)
    #expect(timed.header.windowReason == recorded.header.windowReason)
    // Armed: the first hook, main and the --until function.
    #expect(timed.records.count == 3, "\(timed.records.count) first calls in the timing launch")
    let shown = try phases(work.file("t.trace"))
    let own = try phases(work.file("t.trace.timing"))
    #expect(shown.keys.contains("main → startup complete"), "\(shown.keys.sorted())")
    #expect(Set(own.keys) == Set(shown.keys))
    for (name, span) in own where name != "after the launch" {
      let other = shown[name] ?? []
      #expect(other.count == 2 && zip(other, span).allSatisfy { abs($0 - $1) <= 1 }, "\(name): \(other) \(span)")
    }
  }

  @Test(
    "a timing launch that ends otherwise than the recording is kept with a warning; record exits as the recording did")
  func statusDiffers() throws {
    // The program exits 3 when it finds the file its first run left.
    let source =
      "#include <stdio.h>\n#include <unistd.h>\n"
      + "__attribute__((noinline)) int work(int x) { return x * 7; }\n"
      + "int main(void) {\n  if (access(\"ran\", F_OK) == 0) return 3;\n"
      + "  FILE *f = fopen(\"ran\", \"w\");\n  if (f) fclose(f);\n  return work(2) == 14 ? 0 : 1;\n}\n"
    try source.write(toFile: work.file("once.c"), atomically: true, encoding: .utf8)
    let once = work.file("once")
    try runChecked(Toolchain.clang, ["-O1", "-g", work.file("once.c"), "-o", once])
    let run = try ProcessRunner.run(
      PackagePaths.orderfileExecutable,
      ["record", "--recorder", "in-process", "--timing-launch", "-o", work.file("o.trace"), "--", once],
      environment: ["ORDERFILE_RUNTIME_DIR": try RuntimeBuilder.libraryDirectory()], currentDirectory: work.path)
    #expect(run.status == 0, "\(run.standardError)")
    #expect(
      run.standardError.contains("the timing launch exited with status 3, the recording with 0"), "\(run.standardError)"
    )
    #expect(FileManager.default.fileExists(atPath: work.file("o.trace.timing")))
  }

  @Test(
    "a fork child and a spawned child each take their times from the timing launch's process of their kind; a plugin stays unarmed there"
  )
  func forkChildAndPlugin() throws {
    // The program dlopens a plugin and calls it, forks a child that calls 50 functions of its
    // own and exits, then posix_spawns itself as a child that calls 50 others.
    let plugin = "int plugin_a(int x) { return x + 1; }\nint plugin_b(int x) { return plugin_a(x) * 2; }\n"
    try plugin.write(toFile: work.file("plugin.c"), atomically: true, encoding: .utf8)
    try runChecked(
      Toolchain.clang, ["-O1", "-g", "-shared", "-fPIC", work.file("plugin.c"), "-o", work.file("libplugin.so")])
    let functions = (0..<100).map { "__attribute__((noinline)) int g\($0)(int x) { return x * 5 + \($0); }\n" }.joined()
    let source =
      "#include <dlfcn.h>\n#include <spawn.h>\n#include <string.h>\n#include <sys/wait.h>\n#include <unistd.h>\n"
      + "extern char **environ;\nvolatile int s;\n" + functions
      + "int main(int argc, char **argv) {\n"
      + "  if (argc > 1) {\n" + (50..<100).map { "    s += g\($0)(s);\n" }.joined() + "    return 0;\n  }\n"
      + "  void *h = dlopen(\"\(work.file("libplugin.so"))\", RTLD_NOW);\n"
      + "  int (*b)(int) = h ? (int (*)(int))dlsym(h, \"plugin_b\") : 0;\n  if (!b) return 2;\n  s += b(1);\n"
      + "  pid_t pid = fork();\n  if (pid == 0) {\n" + (0..<50).map { "    s += g\($0)(s);\n" }.joined()
      + "    _exit(0);\n  }\n  int status;\n  waitpid(pid, &status, 0);\n"
      + "  char *args[] = {argv[0], \"child\", 0};\n"
      + "  if (posix_spawn(&pid, argv[0], 0, 0, args, environ) != 0) return 1;\n"
      + "  waitpid(pid, &status, 0);\n  return 0;\n}\n"
    try source.write(toFile: work.file("forking.c"), atomically: true, encoding: .utf8)
    let forking = work.file("forking")
    try runChecked(Toolchain.clang, ["-O1", "-g", work.file("forking.c"), "-o", forking, "-ldl"])
    let run = try ProcessRunner.run(
      PackagePaths.orderfileExecutable,
      ["record", "--recorder", "in-process", "--timing-launch", "-o", work.file("f.trace"), "--", forking],
      environment: ["ORDERFILE_RUNTIME_DIR": try RuntimeBuilder.libraryDirectory()])
    #expect(run.succeeded, "\(run.standardError)")
    let recorded = try traces("f.trace")
    try #require(recorded.count == 2, "\(recorded)")
    // The recording trapped the plugin; the timing launch did not arm it.
    let top = try TraceReader.read(path: work.file("f.trace"))
    #expect(top.modules.contains { $0.path.hasSuffix("libplugin.so") })
    let timing = try TraceReader.read(path: work.file("f.trace.timing"))
    #expect(!timing.modules.contains { $0.path.hasSuffix("libplugin.so") }, "\(timing.modules.map(\.path))")
    #expect(timing.records.count == 2, "\(timing.records.count) first calls in the timing launch")
    for child in recorded {
      let report = try ProcessRunner.run(PackagePaths.orderfileExecutable, ["report", child, "--json"])
      let overhead = try json(report.standardOutput)["recorderOverhead"] as? [String: Any]
      let timed = try #require((overhead?["timingLaunch"] as? [String: Any])?["trace"] as? String, "\(child)")
      #expect(timed.hasPrefix(work.file("f.trace.timing.")))
      let (mine, theirs) = (try TraceReader.read(path: child), try TraceReader.read(path: timed))
      #expect(mine.header.isForked == theirs.header.isForked, "\(child) → \(timed)")
      #expect(theirs.records.count == (theirs.header.forkRecordIndex ?? 0) + (theirs.header.isForked ? 1 : 2))
    }
  }

  @Test(
    "a timing launch left beside another recording, or one that cannot be read, is not used: a warning, the own times")
  func staleOrDamaged() throws {
    #expect(try record(["--timing-launch"]).succeeded)
    let timing = work.file("t.trace.timing")
    // Another recording copied over the first: run after the timing launch, it is not its recording's.
    #expect(
      try ProcessRunner.run(
        PackagePaths.orderfileExecutable,
        ["record", "--recorder", "in-process", "-q", "-o", work.file("x.trace"), "--", program],
        environment: ["ORDERFILE_RUNTIME_DIR": try RuntimeBuilder.libraryDirectory()]
      ).succeeded)
    try FileManager.default.removeItem(atPath: work.file("t.trace"))
    try FileManager.default.copyItem(atPath: work.file("x.trace"), toPath: work.file("t.trace"))
    let stale = try ProcessRunner.run(PackagePaths.orderfileExecutable, ["report", work.file("t.trace"), "--json"])
    #expect(stale.succeeded, "\(stale.standardError)")
    #expect(stale.standardError.contains("not the timing launch of"), "\(stale.standardError)")
    #expect((try json(stale.standardOutput)["recorderOverhead"] as? [String: Any])?["timingLaunch"] == nil)
    // A damaged timing launch.
    try Data([0x4f, 0x46]).write(to: URL(fileURLWithPath: timing))
    let damaged = try ProcessRunner.run(PackagePaths.orderfileExecutable, ["report", work.file("t.trace")])
    #expect(damaged.succeeded, "\(damaged.standardError)")
    #expect(damaged.standardError.contains(timing), "\(damaged.standardError)")
    #expect(!damaged.standardOutput.contains("times from the timing launch"))
  }

  @Test("--timing-launch with the tracer or an instrumented build is a usage error")
  func refusedElsewhere() throws {
    for extra in [["--recorder", "tracer"], ["--instrumented"]] {
      let run = try ProcessRunner.run(
        PackagePaths.orderfileExecutable,
        ["record", "--timing-launch"] + extra + ["-o", work.file("x.trace"), "--", program])
      #expect(run.status == 64, "\(extra): \(run.status) \(run.standardError)")
      #expect(run.standardError.contains("--timing-launch records in-process"), "\(run.standardError)")
    }
  }
}
