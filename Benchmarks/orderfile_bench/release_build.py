"""The release build of a real program (Lua 5.4, the SQLite 3 shell) from its pinned Debian
source, for tests: `Scripts/real-program NAME OUT_DIR` fetches the source into the bench's
cache, compiles it as it ships (-O2 -g -ffunction-sections with clang) and links it with lld.

Exit status: 0, 64 usage, 65 unknown program, 69 the source cannot be fetched (tests skip
then), 70 the build failed. It prints one JSON object: the executable, the link command (without objects, output and
libraries) and the objects and libraries, so a test can relink it with an orderfile exactly
as the bench does, and the arguments of the program's launch scenario.
"""

import json
import sys
import os
import tempfile
from dataclasses import dataclass

from .common import ROOT, BadInput, BenchError
from .debian import fetch_sources
from .process import find_tool, parallel, run_checked
from .realprograms import PROGRAMS


class SourcesUnavailable(Exception):
    """The Debian source could not be fetched (no network, no mirror): exit 69, so tests skip."""


@dataclass
class _Context:
    """What Program.prepare reads of the bench's context."""
    environ: dict
    cc: str


def build(name, out, environ):
    program = next((p for p in PROGRAMS if p.name == name), None)
    if program is None:
        raise BadInput(f"unknown program '{name}' (programs: {', '.join(p.name for p in PROGRAMS)})")
    cc = find_tool("clang", environ, "CC")
    cache = os.path.join(ROOT, "out", "bench-sources")
    with tempfile.TemporaryDirectory(prefix="orderfile-sources-") as scratch:
        try:
            tree = fetch_sources(cache, scratch, environ)[name].tree
        except BenchError as error:
            raise SourcesUnavailable(str(error)) from error
    return build_from_tree(program, tree, out, environ, cc)


def build_from_tree(program, tree, out, environ, cc):
    """The release build of `program` from its unpacked source `tree` into `out`: the JSON
    object `build` prints (the bench's loader section builds from its own fetched sources)."""
    os.makedirs(out, exist_ok=True)
    sources, cflags, libs = program.prepare(_Context(environ, cc), tree, out)
    objects = []
    jobs = []
    for source in sources:
        obj = os.path.join(out, os.path.splitext(os.path.basename(source))[0] + ".o")
        objects.append(obj)
        jobs.append(lambda s=source, o=obj: run_checked([cc, "-O2", "-g", "-ffunction-sections"] + cflags
                                                        + ["-c", s, "-o", o], f"compiling {os.path.basename(s)}",
                                                        env=environ))
    parallel(jobs, os.cpu_count() or 1)
    link = [cc, "-fuse-ld=lld", "-Wl,--build-id"]
    exe = os.path.join(out, program.name)
    run_checked(link + objects + ["-o", exe] + libs, f"linking {program.name}", env=environ)
    return {"executable": exe, "link": link, "objects": objects, "libraries": libs,
            "launch": program.launch_args}


def main(argv):
    if len(argv) != 2:
        print("usage: Scripts/real-program NAME OUT_DIR  (NAME: " + ", ".join(p.name for p in PROGRAMS) + ")")
        return 64
    try:
        print(json.dumps(build(argv[0], os.path.abspath(argv[1]), dict(os.environ))))
    except SourcesUnavailable as error:
        print(f"real-program: cannot fetch the source: {error}", file=sys.stderr)
        return 69
    except (BenchError, BadInput) as error:
        print(f"real-program: error: {error}", file=sys.stderr)
        return 65 if isinstance(error, BadInput) else 70
    return 0
