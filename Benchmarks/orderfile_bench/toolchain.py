"""The tools the real-program sections share: the orderfile CLI, Debian's LLVM 22, and the
hooks libraries an instrumented program picks at run time."""

import os
import shutil
from dataclasses import dataclass

from .common import OVERHEAD_SRC, ROOT, RUNTIME_SRC, BenchError
from .debian import ensure_debian_packages
from .process import GNU_TIME, find_tool, first_line, run_checked


@dataclass(frozen=True)
class Llvm22:
    clang: str = "/usr/bin/clang-22"
    lld: str = "/usr/bin/ld.lld-22"
    profdata: str = "/usr/bin/llvm-profdata-22"
    profile_runtime: str = "/usr/lib/llvm-22/lib/clang/22/lib/linux/libclang_rt.profile-x86_64.a"


@dataclass(frozen=True)
class Hooks:
    """Same-length directories holding a libOrderfileRuntime.so each.

    Instrumented programs link -lOrderfileRuntime without an rpath; each run picks the
    library with LD_LIBRARY_PATH, so the variants run the very same file with environments
    of the same size (the size of the environment shifts the stack, which can move
    timings by itself).
    """
    plain: str  # empty directory: for the builds that need no hooks
    empty: str  # Benchmarks/overhead/empty_hooks.c
    rtime: str  # the runtime under test


def build_empty_hooks(cc, directory):
    run_checked([cc, "-O2", "-fPIC", "-shared", "-Wl,-soname,libOrderfileRuntime.so",
                 os.path.join(OVERHEAD_SRC, "empty_hooks.c"), "-o",
                 os.path.join(directory, "libOrderfileRuntime.so")], "building the empty hooks")


def build_hooks(ctx, base):
    hooks = Hooks(*(os.path.join(base, name) for name in ("plain", "empty", "rtime")))
    for d in (hooks.plain, hooks.empty, hooks.rtime):
        os.makedirs(d, exist_ok=True)
    build_empty_hooks(ctx.cc, hooks.empty)
    shutil.copy2(os.path.join(ctx.runtime.dir, "libOrderfileRuntime.so"), hooks.rtime)
    return hooks


def orderfile_tool(ctx):
    """Path of the orderfile CLI: --orderfile, or built with SwiftPM in .build-bench, its runtime
    and in-process recorder beside it."""
    ensure_debian_packages([(GNU_TIME, "time")], ctx.environ)
    # libdw-dev, pkg-config, make and the rest of what building and the sources need.
    swift = find_tool("swift", ctx.environ)
    path_with_swift = os.path.dirname(swift) + os.pathsep + ctx.environ.get("PATH", "")
    run_checked([os.path.join(ROOT, "Scripts", "setup-deps")], "Scripts/setup-deps",
                env=dict(ctx.environ, PATH=path_with_swift))
    given = ctx.options.orderfile
    if given:
        path = os.path.abspath(given)
        if not os.access(path, os.X_OK):
            raise BenchError(f"--orderfile '{path}' is not an executable")
    else:
        scratch = os.path.join(ROOT, ".build-bench")
        run_checked([os.path.join(ROOT, "Scripts", "fresh-scratch"), scratch], "Scripts/fresh-scratch")
        run_checked([swift, "build", "-c", "release", "--scratch-path", scratch, "--product", "orderfile"],
                    "building the orderfile tool", cwd=ROOT, timeout=1800)
        bindir = run_checked([swift, "build", "-c", "release", "--scratch-path", scratch, "--show-bin-path"],
                             "locating the orderfile tool", cwd=ROOT).strip()
        path = os.path.join(bindir, "orderfile")
        # As a release install has it: without the in-process recorder beside the tool, `record`
        # falls back on the tracer, and the bench would time that instead.
        run_checked([os.path.join(ROOT, "Scripts", "build-runtime"), bindir], "Scripts/build-runtime",
                    env=dict(ctx.environ, PATH=path_with_swift))
    ctx.tools["orderfile"] = f"{path} ({first_line([path, '--version'])})"
    ctx.tools["swift_version"] = first_line([swift, "--version"])
    return path


def install_llvm22(ctx):
    """Debian's LLVM 22: installs clang-22, lld-22, llvm-22 and the profile runtime when missing."""
    llvm = Llvm22()
    ensure_debian_packages([(llvm.clang, "clang-22"), (llvm.lld, "lld-22"), (llvm.profdata, "llvm-22"),
                            (llvm.profile_runtime, "libclang-rt-22-dev")], ctx.environ)
    ctx.tools["clang22_version"] = first_line([llvm.clang, "--version"])
    ctx.tools["lld22_version"] = first_line([llvm.lld, "--version"])
    ctx.tools["profdata22_version"] = " ".join(
        run_checked([llvm.profdata, "--version"], "llvm-profdata-22 --version").split()[-3:])
    return llvm


def instrument_cflags(ctx, target=None, runtime_dir=None, part="--cflags"):
    """`orderfile flags --instrument --cflags` (or `part`, such as --ldflags), pointed at the
    runtime this run built, or at `runtime_dir` built for `target` (a triple: cross flags)."""
    env = dict(ctx.environ, ORDERFILE_RUNTIME_DIR=runtime_dir or ctx.runtime.dir,
               ORDERFILE_INCLUDE_DIR=os.path.join(RUNTIME_SRC, "include"))
    cross = ["--target", target] if target else []
    return run_checked([ctx.orderfile, "flags", "--instrument", "--compiler", "clang", part] + cross,
                       "orderfile flags --instrument", env=env).split()
