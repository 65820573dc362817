"""daily: `orderfile regenerate` on Lua (its code in liblua.a), within and across versions."""

import json
import os
import shutil
from dataclasses import dataclass

from .. import markdown as md
from ..common import verdict
from ..process import run_checked
from ..section import Section

GOAL_CHURN = 0.01
RUNS = 5
# Old and new upstream versions, by their SOURCE_PINS names.
VERSIONS = (("lua53", "5.3"), ("lua", "5.4"))

# The project's build: liblua.a from every source but the two programs, then lua linked
# against it with lld, with $1/lua.order when there is one. Objects are kept, so a relink
# only links.
BUILD_SH = r"""set -eu
orders=$1
mkdir -p build/obj
for source in src/*.c; do
  name=$(basename "$source" .c)
  case "$name" in lua|luac) continue ;; esac
  [ -f "build/obj/$name.o" ] || "$CC" -O2 -g -ffunction-sections -Iinclude -DLUA_COMPAT_5_3 -DLUA_USE_POSIX -DLUA_USE_DLOPEN -w \
    -c "$source" -o "build/obj/$name.o"
done
[ -f build/liblua.a ] || ar rcs build/liblua.a build/obj/*.o
[ -f build/obj/lua.o ] || "$CC" -O2 -g -ffunction-sections -Iinclude -DLUA_USE_POSIX -DLUA_USE_DLOPEN -w -c src/lua.c -o build/obj/lua.o
order=""
[ -f "$orders/lua.order" ] && order="-Wl,--symbol-ordering-file=$orders/lua.order -Wl,--no-warn-symbol-ordering"
"$CC" -fuse-ld=lld -Wl,--build-id -o build/lua.tmp build/obj/lua.o build/liblua.a -lm -ldl $order
mv build/lua.tmp build/lua
"""

CONFIG = """orderfiles: orderfiles
build: sh build.sh "$ORDERFILE_ORDER_DIR"
relink: sh build.sh "$ORDERFILE_NEW_DIR"
binaries:
  lua: build/lua
scenarios:
  - name: empty
    weight: 3
    command: [lua, -e, ""]
  - name: version
    command: [lua, -v]
runs: {runs}
"""


@dataclass
class Regeneration:
    """One run of the command, from its --json --timings report."""
    outcome: str
    entries: int
    added: int
    removed: int
    moved: int
    churn: float
    pages_4k: list[int]     # [shipped, relinked]
    pages_16k: list[int]
    gone: int
    previous: int
    wall_seconds: float
    step_seconds: float     # the sum of its steps


@dataclass
class DailyResult:
    versions: list[list[str]]  # [[Debian source package, version]]
    runs: int
    first: Regeneration     # on the old version, from nothing
    again: Regeneration     # the same build again, against the first's orderfiles
    upgrade: Regeneration   # the new version, against the old version's orderfiles
    passed: bool


def _regeneration(report):
    module = report["modules"][0]
    summary = module["diff"]["summary"]
    pages = {row["pageSize"]: row["pages"] for row in module["pages"]}
    decay = module.get("decay") or {}
    return Regeneration(
        outcome=report["outcome"], entries=summary["headEntries"], added=summary["added"],
        removed=summary["removed"], moved=summary["moved"], churn=summary["churn"],
        pages_4k=[pages[4096]["base"], pages[4096]["head"]], pages_16k=[pages[16384]["base"], pages[16384]["head"]],
        gone=decay.get("goneEntries", 0), previous=decay.get("previousEntries", 0),
        wall_seconds=report["wallSeconds"], step_seconds=sum(step["seconds"] for step in report["steps"]))


def _project(ctx, name, tree):
    project = os.path.join(ctx.scratch, "daily", name)
    shutil.rmtree(project, ignore_errors=True)
    os.makedirs(os.path.join(project, "include"))
    shutil.copytree(os.path.join(tree, "src"), os.path.join(project, "src"))
    # debian/rules writes these headers before building.
    for header in ("lua5.3-deb-multiarch.h", "lua5.4-deb-multiarch.h"):
        with open(os.path.join(project, "include", header), "w") as f:
            f.write('#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"\n')
    with open(os.path.join(project, "build.sh"), "w") as f:
        f.write(BUILD_SH)
    with open(os.path.join(project, "orderfile.yml"), "w") as f:
        f.write(CONFIG.format(runs=RUNS))
    return project


def _regenerate(ctx, project):
    out = run_checked([ctx.orderfile, "regenerate", "--json", "--timings", "-q"], "orderfile regenerate",
                      cwd=project, env=ctx.env({"CC": ctx.cc}))
    return _regeneration(json.loads(out))


def run(ctx):
    sources = ctx.sources
    (old_name, _), (new_name, _) = VERSIONS
    old = _project(ctx, "old", sources[old_name].tree)
    first = _regenerate(ctx, old)
    again = _regenerate(ctx, old)
    new = _project(ctx, "new", sources[new_name].tree)
    shutil.copytree(os.path.join(old, "orderfiles"), os.path.join(new, "orderfiles"))
    upgrade = _regenerate(ctx, new)
    return DailyResult(
        versions=[[sources[n].package, sources[n].version] for n, _ in VERSIONS], runs=RUNS, first=first,
        again=again, upgrade=upgrade, passed=again.churn <= GOAL_CHURN)


def render_text(res):
    u = res.upgrade
    return [
        f"  {res.versions[0][0]} {res.versions[0][1]} -> {res.versions[1][0]} {res.versions[1][1]}, {res.runs} runs of 2 scenarios",
        f"  churn between two regenerations of one build: {res.again.churn * 100:.1f}% (goal <= {GOAL_CHURN * 100:.0f}%)",
        f"  across versions: {u.gone} of {u.previous} entries gone ({u.gone / max(u.previous, 1) * 100:.1f}%); "
        f"launch pages, stale orderfile -> fresh: 4 KiB {u.pages_4k[0]} -> {u.pages_4k[1]}, "
        f"16 KiB {u.pages_16k[0]} -> {u.pages_16k[1]}",
        "  wall time against the sum of its steps: "
        + ", ".join(f"{r.wall_seconds:.2f} s / {r.step_seconds:.2f} s" for r in (res.first, res.again, res.upgrade)),
    ]


def render_markdown(res, report):
    rows = []
    for label, r in (("first, from nothing", res.first), ("same build again", res.again),
                     ("new version, against the old orderfile", res.upgrade)):
        decay = f"{r.gone} of {r.previous}" if r.previous else "–"
        rows.append([label, r.outcome, str(r.entries), f"{r.added} / {r.removed} / {r.moved}", f"{r.churn * 100:.1f}%",
                     decay, f"{r.pages_4k[0]} → {r.pages_4k[1]}", f"{r.pages_16k[0]} → {r.pages_16k[1]}",
                     f"{r.wall_seconds:.2f} s / {r.step_seconds:.2f} s"])
    (old_package, old_version), (new_package, new_version) = res.versions
    body = [f"{report.provenance()} Lua from Debian's `{old_package}` {old_version} and `{new_package}` {new_version}, "
            f"its code in `liblua.a`, {res.runs} runs each of `lua -e ''` (weight 3) and `lua -v`.", "",
            md.table(["regeneration", "outcome", "entries", "added / removed / moved", "churn",
                      "previous entries gone", "pages 4 KiB (shipped → relinked)", "16 KiB", "wall / sum of steps"],
                     ["l", "l", "r", "r", "r", "r", "r", "r", "r"], rows), "",
            f"Churn between two regenerations of the same build: {res.again.churn * 100:.1f}% "
            f"(goal ≤ {GOAL_CHURN * 100:.0f}%: {verdict(res.passed)})."]
    return {"daily": "\n".join(body)}


SECTION = Section(
    name="daily",
    help="orderfile regenerate on Lua 5.3 then 5.4 (code in liblua.a): churn between two regenerations of one "
         "build (goal: at most 1%), decay across versions (entries gone, pages of the stale orderfile against "
         "the fresh one), the command's wall time against the sum of its steps",
    result_type=DailyResult,
    run=run,
    render_text=render_text,
    render_markdown=render_markdown,
)
