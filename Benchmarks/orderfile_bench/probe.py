"""The page probe the product ships (Sources/OrderfilePageProbe, built by Scripts/build-runtime
beside the runtime): the pages of a program's own code a run really executes."""

import os

from .common import BenchError
from .process import run_measured

LIBRARY = "libOrderfilePageProbe.so"


def probe_library(ctx):
    """libOrderfilePageProbe.so beside the bench's runtime."""
    path = os.path.join(ctx.runtime.dir, LIBRARY)
    if not os.path.exists(path):
        raise BenchError(f"no {LIBRARY} in '{ctx.runtime.dir}': build the runtime with Scripts/build-runtime")
    return path


def probe_pages(exe, args, probe, env, out, page_sizes=(4096, 16384), prefix=()):
    """Distinct pages of the main executable's code the run executed, one count per page size;
    None at a size below the page the probe watched (its `pagesize` line: the system's page).

    prefix: what runs the program, such as an emulator (qemu-user passes LD_PRELOAD and the
    probe's variables on to the guest, whose loader preloads the probe built for it)."""
    if os.path.exists(out):
        os.unlink(out)
    run_measured(list(prefix) + [exe] + args, f"{os.path.basename(exe)} under the page probe",
                 env=dict(env, LD_PRELOAD=probe, ORDERFILE_PAGE_PROBE_OUTPUT=out))
    return pages_of_output(out, page_sizes)


def pages_of_output(out, page_sizes):
    """Counts of `page 0 ADDRESS` lines (the main executable; format: page_probe.c) per page size."""
    pages, probe_page = set(), 4096
    with open(out) as f:
        for line in f:
            words = line.split()
            if len(words) == 2 and words[0] == "pagesize":
                probe_page = int(words[1], 16)
            elif len(words) == 3 and words[0] == "page" and words[1] == "0":
                pages.add(int(words[2], 16))
    return tuple(len({p // size for p in pages}) if size >= probe_page and size % probe_page == 0 else None
                 for size in page_sizes)
