"""Launch pages of a binary, as `orderfile estimate --json` counts them."""

import json

from .process import run_checked

PAGE_SIZES = [4096, 16384]


def launch_pages(tool, trace, binary, env=None, page_sizes=PAGE_SIZES):
    """(pages now, lower bound), each by page size as a string (JSON keys), at `page_sizes`
    (of the estimate's 4, 16 and 64 KiB)."""
    rows = {p["pageSize"]: p for p in json.loads(run_checked(
        [tool, "estimate", "--trace", trace, "--binary", binary, "--json"], "orderfile estimate", env=env))["pages"]}
    return ({str(s): rows[s]["current"] for s in page_sizes}, {str(s): rows[s]["lowerBound"] for s in page_sizes})
