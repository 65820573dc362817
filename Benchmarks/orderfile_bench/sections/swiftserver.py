"""swiftserver: a real Swift server, recorded and ordered: what `record` costs beside its launch,
and what its cold launch reads of its own file by section.

The server is a small Vapor 4 app (four routes) written here and built by SwiftPM from the local
package mirror in SERVER_PACKAGE (outside the checkout, kept between runs so a second run only
relinks; never committed): -c release with one section per function, as `orderfile flags
--language swift` prints it, linked by ld.lld with a link map beside it (Docs/BuildWiring.md's Swift
recipe). About 40 MB and tens of thousands of functions. Once bound it calls `serverListening()`,
which prints "listening"; with EXIT_WHEN_LISTENING set it exits there, so a launch is the
server's start to "listening", the window `record --until Server.serverListening` records.

record: the plain launch, then the whole `orderfile record --until Server.serverListening`, first
(an empty plan cache, `ORDERFILE_CACHE_DIR`, for every run) and cached (the cache warmed once),
medians of RUNS interleaved wall times. Goal: the whole cached record at most the plain launch
+ RECORD_GOAL_MS.

cold: the README's flow: record, `generate` with its defaults, relink with exactly what `orderfile
flags --language swift --release` prints (the printed loader options included), and the same
with `--format lld-script` (Docs/BuildWiring.md's recipe for Swift code without a symbol), from a
plain `record` and from `record --data` (the launch's data placed too). Each layout is
launched cold from a loop device with 16 KiB read-ahead, as the loader section does, and counted
by the product's referee (`orderfile estimate --measure-cold --cold-method perf`): the major
faults in the server's own file, by section, the median of COLD_RUNS launches. Goal: at most
COLD_GOAL by the README's flow for data (record --data, the lld script, its printed line). Needs
root, perf and loop devices; skipped otherwise.
"""

import os
import re
import shutil
from dataclasses import dataclass, field

from .. import markdown as md
from ..common import BenchError, note, verdict
from ..model import json_name
from ..process import run_checked
from ..recordcost import RecordRow, over_plain, record_rows, render_rows_markdown, render_rows_text
from ..section import Section
from .coldlaunch import READ_AHEAD_KB, LoopDevice
from .loader import _row, _skip_reason, cold_majors, section_columns

SERVER_PACKAGE = "/tmp/swiftserver"
VAPOR = ("https://github.com/vapor/vapor", "4.122.3")
PRODUCT = "Server"
UNTIL = "Server.serverListening"
RUNS = 5
COLD_RUNS = 5
RECORD_GOAL_MS = 100
COLD_GOAL = 45

PACKAGE_SWIFT = f"""// swift-tools-version:5.10
import PackageDescription

let package = Package(
  name: "server",
  platforms: [.macOS(.v13)],
  dependencies: [.package(url: "{VAPOR[0]}", from: "{VAPOR[1]}")],
  targets: [.executableTarget(name: "{PRODUCT}", dependencies: [.product(name: "Vapor", package: "vapor")])]
)
"""

MAIN_SWIFT = f"""import Foundation
import Vapor

struct Greeting: Content {{
  let message: String
  let count: Int
}}

// The launch ends here: `orderfile record --until {UNTIL}` stops at it.
@inline(never)
func serverListening() {{
  print("listening")
  fflush(stdout)
}}

var env = try Environment.detect()
try LoggingSystem.bootstrap(from: &env)
let app = try await Application.make(env)
app.http.server.configuration.hostname = "127.0.0.1"
app.http.server.configuration.port = Int(Environment.get("PORT") ?? "") ?? 0
app.get {{ _ in "It works!" }}
app.get("hello", ":name") {{ req -> String in "Hello, \\(req.parameters.get("name") ?? "you")!" }}
app.get("json") {{ _ in Greeting(message: "hi", count: 3) }}
app.post("echo") {{ req -> Greeting in try req.content.decode(Greeting.self) }}
try await app.startup()
serverListening()
if Environment.get("EXIT_WHEN_LISTENING") != nil {{ exit(0) }}
try await app.running?.onStop.get()
try await app.asyncShutdown()
"""


@dataclass
class ColdLayout:
    name: str                     # "default", "orderfile", "orderfile + flags --release", ...
    link_flags: list[str]         # the flags added to the release build's for this link
    majors: int                   # in the server's own file, the median launch
    runs: list[int]               # every launch's majors
    by_section: dict[str, int]
    by_kind: dict[str, int] = field(default_factory=dict)
    file_bytes: int = 0


@dataclass
class SwiftServerResult:
    goal: str
    package: str
    build: str                    # the release build's command
    binary_bytes: int
    map_bytes: int
    functions: int                # orderfile entries planned (record's summary)
    launch_functions: int         # entries of the generated orderfile
    records: list[RecordRow]
    cold: list[ColdLayout]
    cold_skipped: str | None
    read_ahead_kb: int
    record_passed: bool
    cold_passed: bool | None
    passed: bool = json_name("pass")


def _write_if_changed(path, text):
    """Writes `text` only when the file differs, so SwiftPM keeps its build."""
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w") as f:
        f.write(text)


def _swift(ctx):
    swift = shutil.which("swift", path=ctx.environ.get("PATH")) or "/opt/swift/usr/bin/swift"
    if not os.path.exists(swift):
        raise BenchError("swift is not installed")
    return swift


def _release_flags(ctx, tool):
    """The release build's SwiftPM flags as `orderfile flags --language swift` prints them, with
    ld.lld and a build-id (the plan cache keys on it)."""
    out = run_checked([tool, "flags", "--language", "swift"], "orderfile flags --language swift", env=ctx.env())
    return _swift_build_flags(out)


def _swift_build_flags(text):
    """The flags after `swift build` on the printed release line (continuations joined, comments
    and `-c release` left out)."""
    joined = re.sub(r"\\\n\s*", " ", text)
    for line in joined.splitlines():
        words = line.split("#")[0].split()
        if words[:2] == ["swift", "build"]:
            rest = words[2:]
            out, skip = [], False
            for i, w in enumerate(rest):
                if skip:
                    skip = False
                    continue
                if w == "-c":
                    skip = True
                    continue
                out.append(w)
            return out
    raise BenchError(f"no `swift build` line in what flags printed:\n{text}")


def _build(ctx, swift, flags, env, what):
    build = [swift, "build", "-c", "release", "--package-path", SERVER_PACKAGE, "--product", PRODUCT] + flags
    run_checked(build, what, env=env, timeout=7200)
    return " ".join(build)


def _record_rows(tool, server, env, work):
    """Plain launch, whole record first and cached, interleaved."""
    record = [tool, "record", "-o", os.path.join(work, "timing.trace"), "--until", UNTIL, "--", server]
    return record_rows([server], record, dict(env, EXIT_WHEN_LISTENING="1"), work, RUNS, "swift server record",
                       shown_plain=f"EXIT_WHEN_LISTENING=1 {server}")


SCRIPT_LAYOUT = "lld-script + what flags --release prints for it"
# The README's flow for data (its step 5): record --data, an lld script, flags --release.
GOAL_LAYOUT = "lld-script from record --data + what flags --release prints"


def _cold_layouts(ctx, tool, swift, flags, env, default_binary, trace, order, script, data_script, work):
    """Each layout relinked by SwiftPM (only the link runs again) and copied to the loop device,
    then counted cold by the referee COLD_RUNS times."""
    def printed(fmt, path):
        out = run_checked([tool, "flags", "--language", "swift", "--format", fmt, "--release", path],
                          f"orderfile flags --language swift --format {fmt} --release", env=env)
        return _added(_swift_build_flags(out), flags)

    symbol_line, script_line = printed("lld", order), printed("lld-script", script)
    layouts = [("default", None),
               ("orderfile alone (generate's defaults)", _with_ordering_only(symbol_line, order)),
               ("orderfile + what flags --release prints", symbol_line),
               (SCRIPT_LAYOUT, script_line),
               (GOAL_LAYOUT, printed("lld-script", data_script))]
    bindir = run_checked([swift, "build", "-c", "release", "--package-path", SERVER_PACKAGE, "--show-bin-path"]
                         + flags, "locating the server's binary", env=env).strip()
    results = []
    with LoopDevice(work) as loop:
        for name, extra in layouts:
            exe = os.path.join(loop.mount, re.sub(r"[^a-z]+", "-", name.split(" (")[0]).strip("-") or "layout")
            if extra is None:
                shutil.copy2(default_binary, exe)
            else:
                _build(ctx, swift, flags + extra, env, f"relinking the server ({name})")
                shutil.copy2(os.path.join(bindir, PRODUCT), exe)
            launch_env = dict(env, EXIT_WHEN_LISTENING="1")
            runs = [cold_majors(tool, trace, default_binary, exe, [], launch_env) for _ in range(COLD_RUNS)]
            runs.sort(key=lambda counts: sum(counts[0].values()))
            median, kinds = runs[len(runs) // 2]
            results.append(ColdLayout(name=name, link_flags=extra or [], majors=sum(median.values()),
                                      runs=[sum(r[0].values()) for r in runs], by_section=median, by_kind=kinds,
                                      file_bytes=os.path.getsize(exe)))
            os.unlink(exe)
    return results


def _added(line, release):
    """What the printed ordered build adds to the release build's flags, which it must begin with
    (SwiftPM then only links again)."""
    if line[:len(release)] != release:
        raise BenchError(f"the ordered build's flags {' '.join(line)} do not begin with the release build's "
                         f"{' '.join(release)}")
    return line[len(release):]


def _with_ordering_only(line, order):
    """The printed line's ordering flag alone (with its `-Xlinker`), without the loader options."""
    at = next((i for i, w in enumerate(line) if order in w), None)
    if at is None:
        raise BenchError(f"flags --release printed no flag naming {order}: {' '.join(line)}")
    return line[at - 1:at + 1] if at > 0 and line[at - 1] == "-Xlinker" else [line[at]]


def run(ctx):
    tool, swift = ctx.orderfile, _swift(ctx)
    os.makedirs(os.path.join(SERVER_PACKAGE, "Sources", PRODUCT), exist_ok=True)
    _write_if_changed(os.path.join(SERVER_PACKAGE, "Package.swift"), PACKAGE_SWIFT)
    _write_if_changed(os.path.join(SERVER_PACKAGE, "Sources", PRODUCT, "main.swift"), MAIN_SWIFT)
    env = ctx.env({"PATH": os.path.dirname(swift) + os.pathsep + ctx.environ.get("PATH", "")})
    env.pop("DEBUGINFOD_URLS", None)
    flags = _release_flags(ctx, tool)
    bindir = run_checked([swift, "build", "-c", "release", "--package-path", SERVER_PACKAGE, "--show-bin-path"]
                         + flags, "locating the server's binary", env=env).strip()
    note("swiftserver: building the Vapor server (a first build takes many minutes)")
    build = _build(ctx, swift, flags + ["-Xlinker", f"-Map={bindir}/{PRODUCT}.map"], env,
                   "building the Swift server (release, link map)")
    work = os.path.join(ctx.scratch, "swiftserver")
    os.makedirs(work, exist_ok=True)
    # Recorded from a copy with its map beside it: the relinks below rewrite the build's own.
    server = os.path.join(work, PRODUCT)
    shutil.copy2(os.path.join(bindir, PRODUCT), server)
    shutil.copy2(os.path.join(bindir, PRODUCT + ".map"), server + ".map")

    records, functions = _record_rows(tool, server, env, work)
    record_passed = over_plain(records) <= RECORD_GOAL_MS

    trace, order, script = (os.path.join(work, n) for n in ("launch.trace", "launch.order", "launch.ld"))
    data_trace, data_script = os.path.join(work, "data.trace"), os.path.join(work, "data.ld")
    run_checked([tool, "record", "-q", "-o", trace, "--until", UNTIL, "--", server], "orderfile record",
                env=dict(env, EXIT_WHEN_LISTENING="1"))
    run_checked([tool, "record", "-q", "--data", "-o", data_trace, "--until", UNTIL, "--", server],
                "orderfile record --data", env=dict(env, EXIT_WHEN_LISTENING="1"))
    # No --format: a trace with the launch's data and the map beside the server gets the script.
    run_checked([tool, "generate", data_trace, "-o", data_script], "orderfile generate (record --data)", env=env)
    with open(data_script) as f:
        if "SECTIONS" not in f.read():
            raise BenchError(f"generate wrote no lld script for a trace with data: {data_script}")
    run_checked([tool, "generate", trace, "-o", order], "orderfile generate", env=env)
    run_checked([tool, "generate", trace, "--format", "lld-script", "-o", script],
                "orderfile generate --format lld-script", env=env)
    with open(order) as f:
        launch_functions = sum(1 for line in f if line.strip() and not line.startswith("#"))

    reason = _skip_reason(ctx.environ)
    cold = []
    if reason:
        note(f"swiftserver: cold launches skipped: {reason}")
    else:
        cold = _cold_layouts(ctx, tool, swift, flags, env, server, trace, order, script, data_script, work)
    printed = next((c for c in cold if c.name == GOAL_LAYOUT), None)
    cold_passed = None if printed is None else printed.majors <= COLD_GOAL
    return SwiftServerResult(
        goal=f"the whole record, plan cache warm, at most the plain launch + {RECORD_GOAL_MS} ms; the server's "
             f"cold majors in its own file at most {COLD_GOAL} by the README's flow for data (record --data, lld "
             f"script, linked as flags --release prints)",
        package=SERVER_PACKAGE, build=build, binary_bytes=os.path.getsize(server),
        map_bytes=os.path.getsize(server + ".map"), functions=functions, launch_functions=launch_functions,
        records=records, cold=cold, cold_skipped=reason, read_ahead_kb=READ_AHEAD_KB, record_passed=record_passed,
        cold_passed=cold_passed, passed=record_passed and cold_passed is not False)


def cold_columns(layouts, limit=6):
    """The sections shown as columns: those with the most majors in any layout, the rest as "other"."""
    return section_columns(layouts, limit)


def render_text(res):
    out = [f"== swiftserver: a Vapor server, {res.binary_bytes / 2**20:,.0f} MB, link map "
           f"{res.map_bytes / 2**20:,.0f} MB beside it ==", f"goal: {res.goal}",
           f"build: {res.build}",
           f"record plans {res.functions:,} entries; the launch to \"listening\" runs "
           f"{res.launch_functions:,} of them (orderfile entries)", "",
           *render_rows_text(res.records, RECORD_GOAL_MS, res.record_passed)]
    out.append("")
    if res.cold_skipped:
        return out + [f"cold majors: skipped: {res.cold_skipped}"]
    shown = cold_columns(res.cold)
    out.append(f"cold major faults in the server's own file by section (loop device, read_ahead_kb="
               f"{res.read_ahead_kb}; orderfile estimate --measure-cold --cold-method perf; median of "
               f"{len(res.cold[0].runs) if res.cold else 0} launches):")
    out.append(f"  {'layout':<60} {'majors':>6} {'code':>5} " + " ".join(f"{n[:14]:>14}" for n in shown)
               + f" {'other':>6}  runs")
    for c in res.cold:
        cells = _row(c, shown)
        out.append(f"  {c.name[:60]:<60} {c.majors:>6} {cells[0]:>5} " + " ".join(f"{x:>14}" for x in cells[1:-1])
                   + f" {cells[-1]:>6}  " + " ".join(str(r) for r in c.runs))
    if res.cold_passed is not None:
        out.append(f"  goal (at most {COLD_GOAL} by the README's flow: {GOAL_LAYOUT}): {verdict(res.cold_passed)}")
    for c in res.cold:
        if c.link_flags:
            out.append(f"  {c.name}: {' '.join(c.link_flags)}")
    return out


def render_markdown(res, report):
    body = [f"{report.provenance()} A Vapor {VAPOR[1]} server ({res.binary_bytes / 2**20:,.0f} MB, "
            f"{res.functions:,} entries planned, a {res.map_bytes / 2**20:,.0f} MB link map beside it), its launch "
            f"to \"listening\" ({res.launch_functions:,} launch functions); median of "
            f"{len(res.records[0].runs_ms)} interleaved runs.", "",
            *render_rows_markdown(res.records, RECORD_GOAL_MS, res.record_passed)]
    if res.cold_skipped:
        body += ["", f"Cold launches skipped: {res.cold_skipped}."]
    elif res.cold:
        shown = cold_columns(res.cold)
        cold_rows = [[c.name, md.bold(c.majors) if c.name == GOAL_LAYOUT else str(c.majors)]
                     + [str(x) for x in _row(c, shown)] for c in res.cold]
        body += ["", f"Cold major faults in the server's own file (loop device, `read_ahead_kb={res.read_ahead_kb}`, "
                 f"`orderfile estimate --measure-cold --cold-method perf`, median of {len(res.cold[0].runs)} launches):",
                 "", md.table(["layout", "majors", "code"] + [f"`{n}`" for n in shown] + ["other"],
                              ["l", "r", "r"] + ["r"] * (len(shown) + 1), cold_rows), "",
                 f"Goal (at most {COLD_GOAL} by the README's flow for data: `record --data`, the lld script linked with "
                 f"what `flags --release` prints): {verdict(res.cold_passed)}."]
    return {"swiftserver": "\n".join(body)}


SECTION = Section(
    name="swiftserver",
    help="a Vapor server built from the local package mirror (about 40 MB, link map beside it): the plain launch "
         "against the whole record, plan cache empty and warm (goal: + 100 ms), and its cold major faults by "
         "section for the default, ordered and ordered + loader options layouts (goal: at most 45; needs root, "
         "perf and loop devices for the cold part). A first build of the server takes many minutes",
    result_type=SwiftServerResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)
