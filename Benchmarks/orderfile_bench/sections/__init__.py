"""The registry of sections, in the order a full run measures them.

To add a section: write a module here that defines its result dataclass, `run(ctx)`,
`render_text(result)`, `render_markdown(result, report)` and a `SECTION = Section(...)`
(see section.py), then list its SECTION below. The command line, --help, the JSON
report, --report and --update-docs pick it up from here. A section that builds or
records something another section could reuse puts it on the context (context.py).
"""

from . import (arm64, coldlaunch, daily, inprocess, instrumentation, languages, largeorder, largephases,
               largeprogram, loader, measured, norebuild, overhead, programs, scale,
               startup, swiftserver, symbolization)

SECTIONS = [
    overhead.SECTION,
    startup.SECTION,
    programs.SECTION,
    instrumentation.SECTION,
    norebuild.SECTION,
    inprocess.SECTION,
    largephases.SECTION,
    languages.SECTION,
    symbolization.SECTION,
    scale.SECTION,
    largeprogram.SECTION,
    coldlaunch.SECTION,
    loader.SECTION,
    swiftserver.SECTION,
    largeorder.SECTION,
    daily.SECTION,
    measured.SECTION,
    arm64.SECTION,
]

BY_NAME = {s.name: s for s in SECTIONS}
