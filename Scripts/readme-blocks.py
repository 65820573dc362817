#!/usr/bin/env python3
"""readme-blocks.py OUT README - writes the demo's outputs into README's marked blocks.

Scripts/demo --update-readme calls it after a run. Each block sits between
<!-- demo:NAME --> and <!-- /demo:NAME --> lines and becomes a text block: the command as
a reader would type it in out/demo, then what the tool printed, with the run's absolute
paths made relative to out/demo. A README without a block named here is an error.
"""

import os
import re
import sys

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
    with open(readme) as f:
        text = f.read()
    for name, (command, output) in BLOCKS.items():
        pattern = re.compile(rf"(<!-- demo:{re.escape(name)} -->\n)(?:.*?\n)?(<!-- /demo:{re.escape(name)} -->)", re.S)
        if not pattern.search(text):
            print(f"readme-blocks: error: {readme} has no <!-- demo:{name} --> block", file=sys.stderr)
            return 65
        text = pattern.sub(lambda m: m.group(1) + block(out, command, output) + "\n" + m.group(2), text)
    temporary = readme + ".tmp"
    with open(temporary, "w") as f:
        f.write(text)
    os.replace(temporary, readme)
    print(f"updated {len(BLOCKS)} blocks in {readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
