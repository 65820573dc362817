"""orderfile's benchmarks, run by Scripts/bench.

Layout:
  cli.py          the command line: options, running the sections, the outputs
  context.py      one invocation's context; what sections share, built once on first use
  sections/       one module per section, and the registry (sections/__init__.py)
  section.py      what a section provides
  report.py       the whole report and its text form
  markdown.py     the Markdown exporter: tables, the blocks in Docs/ between marker comments
  model.py        typed results to and from JSON (--save, --report)
  realprograms.py Lua and SQLite from their Debian sources, and their recorded launches
  toolchain.py    the orderfile tool, LLVM 22, the hooks libraries
  debian.py       Debian packages and the pinned source packages
  machine.py      the machine, and building the runtime
  process.py      running and timing commands, always with an explicit environment
  stats.py        medians, spread, the rotating order of interleaved runs

Standard library only.
"""
