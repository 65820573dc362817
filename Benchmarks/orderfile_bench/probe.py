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


def probe_pages(exe, args, probe, env, out, page_sizes=(4096, 16384)):
    """Distinct pages of the main executable's code the run executed, one count per page size."""
    if os.path.exists(out):
        os.unlink(out)
    run_measured([exe] + args, f"{os.path.basename(exe)} under the page probe",
                 env=dict(env, LD_PRELOAD=probe, ORDERFILE_PAGE_PROBE_OUTPUT=out))
    pages = set()
    with open(out) as f:
        for line in f:
            words = line.split()
            # "page MODULE ADDRESS", module 0 being the main executable (format: page_probe.c).
            if len(words) == 3 and words[0] == "page" and words[1] == "0":
                pages.add(int(words[2], 16))
    return tuple(len({p // size for p in pages}) for size in page_sizes)
