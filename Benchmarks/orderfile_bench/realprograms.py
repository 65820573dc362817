"""The real programs (Lua 5.4, the SQLite 3 shell): how each is built from its Debian
source, and its recorded launch. Built once per invocation, on first use, and shared by the
sections that measure them (programs, instrumentation, symbolization)."""

import json
import os
from dataclasses import dataclass

from .common import PROGRAMS_SRC, note
from .process import parallel, run_checked, run_measured
from .stats import Summary
from .toolchain import instrument_cflags

# Debian's own CFLAGS for the sqlite3 package (debian/rules), plus what its configure enables.
SQLITE_DEFINES = [
    "-DSQLITE_SECURE_DELETE", "-DSQLITE_ENABLE_COLUMN_METADATA", "-DSQLITE_ENABLE_FTS3",
    "-DSQLITE_ENABLE_FTS3_PARENTHESIS", "-DSQLITE_ENABLE_RTREE=1", "-DSQLITE_SOUNDEX=1",
    "-DSQLITE_ENABLE_UNLOCK_NOTIFY", "-DSQLITE_OMIT_LOOKASIDE=1", "-DSQLITE_ENABLE_DBSTAT_VTAB",
    "-DSQLITE_ALLOW_ROWID_IN_VIEW", "-DSQLITE_ENABLE_UPDATE_DELETE_LIMIT=1", "-DSQLITE_ENABLE_LOAD_EXTENSION",
    "-DSQLITE_ENABLE_JSON1", "-DSQLITE_LIKE_DOESNT_MATCH_BLOBS", "-DSQLITE_THREADSAFE=1",
    "-DSQLITE_ENABLE_FTS3_TOKENIZER=1", "-DSQLITE_USE_URI=1", "-DSQLITE_MAX_SCHEMA_RETRY=25",
    "-DSQLITE_ENABLE_PREUPDATE_HOOK", "-DSQLITE_ENABLE_SESSION", "-DSQLITE_ENABLE_STMTVTAB",
    "-DSQLITE_MAX_VARIABLE_NUMBER=250000", "-DSQLITE_ENABLE_FTS4", "-DSQLITE_ENABLE_FTS5",
]
SQLITE_INSERTS = 5000


class Program:
    """One real program: how to build it from its Debian source, and its scenarios."""

    name: str       # key of its source pin (debian.SOURCE_PINS)
    title: str      # for text
    short: str      # for tables
    launch_args: list[str]
    launch_text: str
    heavy_text: str

    def prepare(self, ctx, tree, build, multiarch="x86_64-linux-gnu"):
        """Returns (C sources, extra compile flags, link libraries); `multiarch` is the Debian
        multiarch name of the machine the build is for."""
        raise NotImplementedError

    def heavy_args(self, build):
        raise NotImplementedError


class Lua(Program):
    name, title, short = "lua", "Lua 5.4 interpreter", "Lua"
    launch_args, launch_text = ["-e", ""], "lua -e ''"
    heavy_text = "lua Benchmarks/programs/loop.lua"

    def prepare(self, ctx, tree, build, multiarch="x86_64-linux-gnu"):
        include = os.path.join(build, "include", multiarch)
        os.makedirs(include, exist_ok=True)
        # debian/rules writes this header before building.
        with open(os.path.join(include, "lua5.4-deb-multiarch.h"), "w") as f:
            f.write('#ifndef _LUA_DEB_MULTIARCH_\n#define _LUA_DEB_MULTIARCH_\n'
                    f'#define DEB_HOST_MULTIARCH "{multiarch}"\n#endif\n')
        src = os.path.join(tree, "src")
        sources = sorted(os.path.join(src, f) for f in os.listdir(src)
                         if f.endswith(".c") and f != "luac.c")
        return sources, ["-I" + include, "-DLUA_COMPAT_5_3", "-DLUA_USE_LINUX", "-w"], ["-lm", "-ldl"]

    def heavy_args(self, build):
        return [os.path.join(PROGRAMS_SRC, "loop.lua")]


class SQLite(Program):
    name, title, short = "sqlite3", "SQLite 3 shell", "SQLite"
    launch_args, launch_text = [":memory:", "select 1"], "sqlite3 :memory: 'select 1'"
    heavy_text = f"sqlite3 :memory: '.read inserts.sql' ({SQLITE_INSERTS} inserts, then a query)"

    def prepare(self, ctx, tree, build, multiarch="x86_64-linux-gnu"):
        # The amalgamation is C source for any machine: generated once per build directory.
        gen = os.path.join(build, "amalgamation")
        if not os.path.exists(os.path.join(gen, "shell.c")):
            os.makedirs(gen, exist_ok=True)
            # The amalgamation (sqlite3.c) and the shell (shell.c) are generated with tclsh.
            env = dict(ctx.environ, CC=ctx.cc)
            run_checked([os.path.join(tree, "configure"), "--disable-tcl", "--disable-readline"],
                        "configuring sqlite3", cwd=gen, env=env, timeout=600)
            run_checked(["make", "sqlite3.c", "shell.c"], "generating the sqlite3 amalgamation", cwd=gen,
                        env=env, timeout=1200)
        sql = os.path.join(build, "inserts.sql")
        with open(sql, "w") as f:
            f.write("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, value REAL);\n")
            for i in range(SQLITE_INSERTS):
                f.write(f"INSERT INTO t(name, value) VALUES ('row {i}', {i * 0.5});\n")
            f.write("CREATE INDEX t_name ON t(name);\n")
            f.write("SELECT count(*), sum(value), max(name) FROM t;\n")
        return ([os.path.join(gen, "sqlite3.c"), os.path.join(gen, "shell.c")],
                ["-I" + gen, "-w"] + SQLITE_DEFINES, ["-lm", "-ldl", "-lpthread"])

    def heavy_args(self, build):
        return [":memory:", ".read " + os.path.join(build, "inserts.sql")]


PROGRAMS = [Lua(), SQLite()]


def short_name(name):
    """How tables name the program called `name` in a report."""
    program = next((p for p in PROGRAMS if p.name == name), None)
    return program.short if program else name


@dataclass(frozen=True)
class ProgramExes:
    default: str  # release objects, default layout
    instr: str    # instrumented, -lOrderfileRuntime
    pgo: str      # LLVM temporal profiling


@dataclass(frozen=True)
class ProgramBuild:
    dir: str
    objects: list[str]  # the release objects every layout links
    libs: list[str]
    link: list[str]     # the link command, without objects and output
    exes: ProgramExes
    sources: int
    compile: dict[str, str]  # variant -> compile command as the report shows it


def build_program(ctx, program):
    """Builds a program three ways from its Debian source:

    - plain: clang (the toolchain's) -O2 -ffunction-sections, the objects every layout links;
    - instr: the same plus `orderfile flags --instrument --cflags`, linked against
      -lOrderfileRuntime (runtime or empty hooks chosen per run with LD_LIBRARY_PATH);
    - pgo: clang-22 -O2 -ffunction-sections -fprofile-generate -mllvm
      -pgo-temporal-instrumentation, LLVM's temporal profiling build.
    """
    ctx.orderfile  # first: its Scripts/setup-deps installs make and the rest the builds need
    llvm, hooks = ctx.llvm22, ctx.hooks
    tree = ctx.sources[program.name].tree
    build = os.path.join(ctx.scratch, "programs", program.name)
    os.makedirs(build, exist_ok=True)
    note(f"building {program.name} from {os.path.basename(tree)}")
    sources, cflags, libs = program.prepare(ctx, tree, build)
    instrument = instrument_cflags(ctx)
    base = ["-O2", "-ffunction-sections"] + cflags
    variants = {
        "plain": [ctx.cc] + base,
        "instr": [ctx.cc] + base + instrument,
        "pgo": [llvm.clang] + base + ["-fprofile-generate", "-mllvm", "-pgo-temporal-instrumentation"],
    }
    objects = compile_variants(ctx, sources, variants, build)
    # Every final link uses ld.lld 22: lld 21 crashes reading LLVM 22's indexed profile
    # (--irpgo-profile), and one linker for all layouts keeps the comparison fair.
    link = [ctx.cc, "-fuse-ld=lld", f"--ld-path={llvm.lld}", "-Wl,--build-id"]
    exes = ProgramExes(*(os.path.join(build, f"{program.name}-{v}") for v in ("default", "instr", "pgo")))
    run_checked(link + objects["plain"] + ["-o", exes.default] + libs, f"linking {program.name} (default)")
    run_checked(link + objects["instr"] + ["-L" + hooks.empty, "-lOrderfileRuntime", "-o", exes.instr]
                + libs, f"linking {program.name} (instrumented)")
    run_checked([llvm.clang, "-fuse-ld=lld", "-Wl,--build-id", "-fprofile-generate"] + objects["pgo"]
                + ["-o", exes.pgo] + libs, f"linking {program.name} (temporal profiling)")
    return ProgramBuild(dir=build, objects=objects["plain"], libs=libs, link=link, exes=exes,
                        sources=len(sources), compile=compile_text(variants))


def compile_variants(ctx, sources, variants, build):
    """Compiles every source with each variant's command (variant -> compiler and flags) into
    build/obj-VARIANT, all in parallel; returns variant -> objects, in the order of `sources`."""
    jobs, objects = [], {v: [] for v in variants}
    for variant, cmd in variants.items():
        d = os.path.join(build, "obj-" + variant)
        os.makedirs(d, exist_ok=True)
        for s in sources:
            obj = os.path.join(d, os.path.splitext(os.path.basename(s))[0] + ".o")
            objects[variant].append(obj)
            jobs.append(lambda cmd=cmd, s=s, obj=obj, variant=variant:
                        run_measured(cmd + ["-c", s, "-o", obj], f"compiling {os.path.basename(s)} ({variant})"))
    parallel(jobs, ctx.machine.nproc)
    return objects


def compile_text(variants):
    """variant -> its compile command as a report shows it (no -I, no -D)."""
    return {v: " ".join([os.path.basename(cmd[0])] + [x for x in cmd[1:] if not x.startswith(("-I", "-D"))])
            for v, cmd in variants.items()}


@dataclass
class GenerateTiming:
    """`orderfile generate`, end to end, on a recorded launch."""
    command: str
    wall: Summary
    peak_kib: int


@dataclass(frozen=True)
class LaunchArtifacts:
    trace: str
    order: str
    profdata: str
    profdata_order: str
    orderfile_entries: int | None
    match_rate: float | None
    profdata_entries: int
    generate: GenerateTiming


GENERATE_RUNS = 5


def record_launch(ctx, program):
    """Records the launch with the runtime, generates the orderfile (timed), and gets LLVM's
    temporal profile of the same launch with llvm-profdata order's list."""
    b = ctx.build(program)
    tool, llvm, hooks = ctx.orderfile, ctx.llvm22, ctx.hooks
    d = os.path.join(b.dir, "launch")
    os.makedirs(d, exist_ok=True)
    trace, order = os.path.join(d, "launch.trace"), os.path.join(d, "orderfile.order")
    run_checked([tool, "record", "--instrumented", "-o", trace, "--", b.exes.instr] + program.launch_args,
                f"recording the launch of {program.name}", env=ctx.env({"LD_LIBRARY_PATH": hooks.rtime}))
    generate = [tool, "generate", trace, "-o", order, "--json"]
    walls, peaks = [], []
    report = None
    for _ in range(GENERATE_RUNS):
        wall, peak, out, _ = run_measured(generate, f"orderfile generate ({program.name})", env=ctx.env(),
                                          peak=True)
        walls.append(wall)
        peaks.append(peak)
        report = out
    gen = json.loads(report)
    profraw, profdata = os.path.join(d, "launch.profraw"), os.path.join(d, "launch.profdata")
    run_checked([b.exes.pgo] + program.launch_args, f"temporal profile of {program.name}'s launch",
                env=ctx.env({"LLVM_PROFILE_FILE": profraw}))
    run_checked([llvm.profdata, "merge", "-o", profdata, profraw], "llvm-profdata-22 merge")
    profdata_order = os.path.join(d, "profdata.order")
    run_checked([llvm.profdata, "order", profdata, "-o", profdata_order], "llvm-profdata-22 order")
    with open(profdata_order) as f:
        profdata_entries = sum(1 for line in f if line.strip() and not line.startswith("#"))
    module = gen["modules"][0] if gen.get("modules") else {}
    return LaunchArtifacts(
        trace=trace, order=order, profdata=profdata, profdata_order=profdata_order,
        orderfile_entries=module.get("entries"), match_rate=gen.get("matchRate"),
        profdata_entries=profdata_entries,
        generate=GenerateTiming(command="orderfile generate launch.trace -o orderfile.order --json",
                                wall=Summary.of(walls), peak_kib=max(peaks)))
