"""languages: the Swift and Rust examples (Examples/swift-app, Examples/rust-app), built with
the flags `orderfile flags --language swift|rust` prints, ordered from the release binary and
from the SanitizerCoverage build, with the launch pages of each relink."""

import json
import os
import shutil
from dataclasses import dataclass

from .. import markdown as md
from ..common import ROOT, verdict
from ..model import json_name
from ..process import run_checked, run_measured
from ..estimate import PAGE_SIZES, launch_pages
from ..section import Section

LAYOUTS = ["default", "release order", "instrumented order"]


@dataclass
class LanguageExample:
    example: str
    language: str
    pages: dict[str, dict[str, int]]  # layout -> page size (str) -> launch pages of the release binary
    lower_bound: dict[str, int]
    recorded: dict[str, int]          # "release" / "instrumented" -> functions of the executable recorded
    lld_warnings: dict[str, int]      # order -> warning lines of the relink
    passed: bool = json_name("pass")  # ordered from the release binary within 1 page of the bound at 16 KiB


@dataclass
class LanguagesResult:
    goal: str
    examples: list[LanguageExample]
    skipped: list[str]
    passed: bool = json_name("pass")


def _flags(ctx, language, build):
    """The printed build: its compiler arguments, and cargo's own `--target` when it names one
    (every Rust build does, which keeps RUSTFLAGS off build scripts)."""
    out = run_checked([ctx.orderfile, "flags", "--language", language, "--json"] + build,
                      f"orderfile flags --language {language}", env=ctx.env({"ORDERFILE_RUNTIME_DIR": ctx.runtime.dir}))
    printed = json.loads(out)
    cargo = printed.get("cargoArguments", [])
    triple = cargo[cargo.index("--target") + 1] if "--target" in cargo else None
    return printed["arguments"], triple


class _Swift:
    example, language, executable = "swift-app", "swift", "swiftapp"

    def __init__(self, ctx, work):
        self.ctx, self.work = ctx, work
        self.swift = shutil.which("swift", path=ctx.environ.get("PATH")) or "/opt/swift/usr/bin/swift"

    def build(self, scratch, printed):
        flags, _ = printed
        args = [self.swift, "build", "-c", "release", "--package-path", os.path.join(ROOT, "Examples", "swift-app"),
                "--scratch-path", os.path.join(self.work, scratch)] + flags
        _, _, out, err = run_measured(args, f"swift build ({scratch})", env=self.ctx.env())
        binary = run_checked(args + ["--show-bin-path"], "swift build --show-bin-path", env=self.ctx.env()).strip()
        return os.path.join(binary, self.executable), out + err


class _Rust:
    example, language, executable = "rust-app", "rust", "rustapp"

    def __init__(self, ctx, work, cargo):
        self.ctx, self.work, self.cargo = ctx, work, cargo

    def build(self, target, printed):
        flags, triple = printed
        env = self.ctx.env({"CARGO_ENCODED_RUSTFLAGS": "\x1f".join(flags),
                            "PATH": os.path.dirname(self.cargo) + os.pathsep + os.path.dirname(self.ctx.lld)
                            + os.pathsep + self.ctx.environ.get("PATH", "")})
        # A folder of cargo's own: SwiftPM leaves a `release` link to `<triple>/release` in its
        # scratch folder, and cargo with --target locks both paths, the same file, and waits on itself.
        target_dir = os.path.join(self.work, "cargo-" + target)
        _, _, out, err = run_measured([self.cargo, "build", "--release", "--offline", "--locked", "--manifest-path",
                                       os.path.join(ROOT, "Examples", "rust-app", "Cargo.toml"), "--target-dir",
                                       target_dir] + (["--target", triple] if triple else []),
                                      f"cargo build ({target})", env=env)
        folder = os.path.join(target_dir, triple) if triple else target_dir
        return os.path.join(folder, "release", self.executable), out + err


def _cargo(environ):
    found = shutil.which("cargo", path=environ.get("PATH"))
    for candidate in [os.path.join(environ.get("CARGO_HOME", ""), "bin", "cargo"),
                      os.path.expanduser("~/.cargo/bin/cargo")]:
        if not found and os.access(candidate, os.X_OK):
            found = candidate
    return found


def _measure(ctx, project):
    tool, d = ctx.orderfile, os.path.join(project.work, project.example)
    os.makedirs(d, exist_ok=True)
    default, _ = project.build("release", _flags(ctx, project.language, []))
    kept = os.path.join(d, "default")
    shutil.copy2(default, kept)
    instrumented, _ = project.build("instrumented", _flags(ctx, project.language, ["--instrument"]))
    traces, recorded = {}, {}
    for mode, program, flag in [("release", kept, "--no-rebuild"), ("instrumented", instrumented, "--instrumented")]:
        traces[mode] = os.path.join(d, mode + ".trace")
        run_measured([tool, "record", flag, "-q", "-o", traces[mode], "--", program], f"recording {mode}",
                     env=ctx.env())
        report = json.loads(run_checked([tool, "generate", traces[mode], "-o", os.path.join(d, mode + ".order"),
                                         "--json"], f"orderfile generate ({mode})", env=ctx.env()))
        recorded[mode] = report["modules"][0]["recordedFunctions"]
    pages, warnings = {}, {}
    pages["default"], bound = launch_pages(tool, traces["release"], kept)
    for mode in ("release", "instrumented"):
        order = os.path.join(d, mode + ".order")
        binary, log = project.build("release", _flags(ctx, project.language, ["--release", order]))
        warnings[mode + " order"] = sum(1 for line in log.splitlines() if "warning" in line)
        ordered = os.path.join(d, "ordered-" + mode)
        shutil.copy2(binary, ordered)
        pages[mode + " order"], _ = launch_pages(tool, traces["release"], ordered)
    return LanguageExample(example=project.example, language=project.language, pages=pages, lower_bound=bound,
                           recorded=recorded, lld_warnings=warnings,
                           passed=pages["release order"]["16384"] <= bound["16384"] + 1
                           and warnings["release order"] == 0)


def run(ctx):
    work = os.path.join(ctx.scratch, "languages")
    os.makedirs(work, exist_ok=True)
    projects, skipped = [_Swift(ctx, work)], []
    cargo = _cargo(ctx.environ)
    if cargo:
        projects.append(_Rust(ctx, work, cargo))
    else:
        skipped.append("rust-app: cargo not found (on PATH, $CARGO_HOME/bin or ~/.cargo/bin)")
    examples = [_measure(ctx, p) for p in projects]
    return LanguagesResult(goal="ordered from the release binary within 1 page of the lower bound at 16 KiB, "
                                "0 linker warnings", examples=examples, skipped=skipped,
                           passed=all(e.passed for e in examples))


def render_text(res):
    out = [f"== languages: the Swift and Rust examples (goal: {res.goal}) ==",
           "launch pages of the release binary (orderfile estimate on the release trace)", "",
           f"{'example':<10} {'page':>6} {'default':>8} {'release order':>14} {'instrumented order':>19} "
           f"{'lower bound':>12}"]
    for e in res.examples:
        for s in PAGE_SIZES:
            k = str(s)
            out.append(f"{e.example:<10} {s // 1024:>2} KiB {e.pages['default'][k]:>8} "
                       f"{e.pages['release order'][k]:>14} {e.pages['instrumented order'][k]:>19} "
                       f"{e.lower_bound[k]:>12}")
        out.append(f"{e.example:<10} functions recorded in the executable: {e.recorded['release']} without a "
                   f"rebuild, {e.recorded['instrumented']} instrumented; linker warnings "
                   f"{e.lld_warnings['release order']} / {e.lld_warnings['instrumented order']}: {verdict(e.passed)}")
    out.extend(f"skipped: {s}" for s in res.skipped)
    return out


def render_markdown(res, report):
    rows = []
    for e in res.examples:
        for s in PAGE_SIZES:
            k = str(s)
            rows.append([e.example if s == PAGE_SIZES[0] else "", f"{s // 1024} KiB", str(e.pages["default"][k]),
                         md.bold(str(e.pages["release order"][k])), str(e.pages["instrumented order"][k]),
                         str(e.lower_bound[k])])
    recorded = [[e.example, str(e.recorded["release"]), str(e.recorded["instrumented"]),
                 f"{e.lld_warnings['release order']} / {e.lld_warnings['instrumented order']}", verdict(e.passed)]
                for e in res.examples]
    body = [report.provenance(), "",
            md.table(["example", "page", "default", "ordered, recorded without a rebuild",
                      "ordered, recorded instrumented", "lower bound"], ["l", "l", "r", "r", "r", "r"], rows), "",
            md.table(["example", "functions recorded without a rebuild", "instrumented",
                      "linker warnings (release / instrumented order)", "goal"], ["l", "r", "r", "r", "l"], recorded)]
    body += [f"Skipped: {s}." for s in res.skipped]
    body += ["", f"Goal: {res.goal}: {verdict(res.passed)}."]
    return {"languages": "\n".join(body)}


SECTION = Section(
    name="languages",
    help="the Swift and Rust examples built with 'orderfile flags --language', ordered from the release binary "
         "and from the SanitizerCoverage build (goal: within 1 page of the lower bound at 16 KiB, 0 linker "
         "warnings)",
    result_type=LanguagesResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)
