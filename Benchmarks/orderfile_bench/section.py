"""What a section is, for the registry in sections/__init__.py."""

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Section:
    """One benchmark section.

    name: what the command line calls it, and the key of its result in the JSON report.
    help: its description for --help, one string, wrapped by the help text.
    result_type: the dataclass `run` returns (with a `passed` field, "pass" in JSON), so a
      saved report can be loaded back (--report).
    run(ctx) -> result: measures; ctx is a context.Context.
    render_text(result) -> [str]: its part of the text report; the report adds "NAME: PASS|FAIL".
    render_markdown(result, report) -> {block: Markdown}: the documentation blocks it owns, each
      written between <!-- bench:BLOCK --> and <!-- /bench:BLOCK --> by --update-docs;
      report.Report gives the run's date, command and machine.
    """
    name: str
    help: str
    result_type: type
    run: Callable[[Any], Any]
    render_text: Callable[[Any], list[str]]
    render_markdown: Callable[[Any, Any], dict[str, str]]
