#!/usr/bin/env python3
"""doc-blocks.py OUT FILE... - writes the demo's outputs into the files' marked blocks.

Scripts/demo --update-docs calls it after a run with every file of Docs/. Each block sits
between <!-- demo:NAME --> and <!-- /demo:NAME --> lines, in whichever file quotes it, and
becomes a text block: the command as a reader would type it in out/demo, then what the tool
printed, with the run's absolute paths made relative to out/demo. A block named here that
no file holds, or that two files hold, is an error, and every file is then left as it was.
The blocks are replaced by the bench's block updater (Benchmarks/orderfile_bench/markdown.py),
the one that writes the `bench:` blocks.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Benchmarks"))
from orderfile_bench.common import BadInput  # noqa: E402
from orderfile_bench.markdown import update_files  # noqa: E402

# name -> (the command shown, or None for a table the demo prints itself; its output file in OUT)
BLOCKS = {
    "estimate": ("orderfile estimate --trace launch.trace --binary release-default/launchpad "
                 "--order orders/launchpad.order", "estimate.txt"),
    "measured": (None, "measured.txt"),
    "verify": ("orderfile verify --binary release-ordered/launchpad --order orders/launchpad.order",
               "verify.txt"),
    "norebuild-record": ("orderfile record -o release.trace --until launch_ready -- release-default/launchpad",
                         "norebuild-record.txt"),
    "norebuild-verify": ("orderfile verify --binary release-ordered-norebuild/launchpad "
                         "--order release-orders/launchpad.order", "norebuild-verify.txt"),
    "norebuild-estimate": ("orderfile estimate --trace release.trace --binary release-ordered-norebuild/launchpad",
                           "norebuild-estimate.txt"),
    "report-premain": ("orderfile report launch.trace", "report-premain.txt"),
    "report-series": ("orderfile report series/launch-{1..10}.trace", "series.txt"),
    "regenerate-first": ("orderfile regenerate", "regenerate-first.txt"),
    "regenerate-again": ("orderfile regenerate", "regenerate-again.txt"),
    "regenerate-change": ("orderfile regenerate", "regenerate-change.txt"),
    "regenerate-body": (None, "regenerate-body.md"),
}


def block(out, command, name):
    with open(os.path.join(out, name)) as f:
        text = f.read().replace(out.rstrip("/") + "/", "").rstrip("\n")
    shown = (f"$ {command}\n" if command else "") + text
    return f"```text\n{shown}\n```"


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 64
    out, files = os.path.abspath(argv[0]), argv[1:]
    try:
        blocks = {name: block(out, command, output) for name, (command, output) in BLOCKS.items()}
        replaced, _ = update_files(files, blocks, kind="demo", require_all=True)
    except (BadInput, OSError) as e:
        print(f"doc-blocks: error: {e}", file=sys.stderr)
        return 65
    for path, names in replaced.items():
        if names:
            print(f"updated {len(names)} blocks in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
