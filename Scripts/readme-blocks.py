#!/usr/bin/env python3
"""readme-blocks.py OUT README - writes the demo's outputs into README's marked blocks.

Scripts/demo --update-readme calls it after a run. Each block sits between
<!-- demo:NAME --> and <!-- /demo:NAME --> lines and becomes a text block: the command as
a reader would type it in out/demo, then what the tool printed, with the run's absolute
paths made relative to out/demo. A README without a block named here is an error, and
the README is then left as it was. The blocks are replaced by the bench's README updater
(Benchmarks/orderfile_bench/markdown.py), the one that writes the `bench:` blocks.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Benchmarks"))
from orderfile_bench.common import BadInput  # noqa: E402
from orderfile_bench.markdown import update_file  # noqa: E402

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
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 64
    out, readme = os.path.abspath(argv[0]), argv[1]
    try:
        blocks = {name: block(out, command, output) for name, (command, output) in BLOCKS.items()}
        update_file(readme, blocks, kind="demo", require_all=True)
    except (BadInput, OSError) as e:
        print(f"readme-blocks: error: {e}", file=sys.stderr)
        return 65
    print(f"updated {len(BLOCKS)} blocks in {readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
