"""The whole report: where it ran, with what, and each section's result; its text form."""

import shlex
from dataclasses import dataclass
from typing import Any

from .common import BadInput, verdict
from .debian import SourceInfo
from .machine import Machine, RuntimeInfo
from .model import from_json, json_name


@dataclass
class Report:
    machine: Machine
    tools: dict[str, str]
    sections: dict[str, Any]  # section name -> its result dataclass, in the order they ran
    runtime: RuntimeInfo | None
    sources: dict[str, SourceInfo] | None
    date: str
    passed: bool = json_name("pass")
    command: list[str] | None = None  # the arguments that decide what is measured (cli.quoted_args)

    def command_text(self):
        if self.command is None:
            return "Scripts/bench"
        return " ".join(["Scripts/bench"] + [shlex.quote(a) for a in self.command])

    def provenance(self):
        """Where a documentation block's figures come from: the run, its command and the machine."""
        m = self.machine
        about = [f"{m.nproc} CPUs ({m.cpu_model})"] + ([m.os] if m.os else []) + [f"Linux {m.kernel}"]
        if m.memory_kib:
            about.append(f"{m.memory_kib / 2**20:.0f} GiB")
        load = f"load average {m.loadavg_start[0]:.1f}"
        if m.loadavg_end:
            load += f" at start, {m.loadavg_end[0]:.1f} at end"
        return f"Run of {self.date}, `{self.command_text()}`, on {', '.join(about)}; {load}."


def load_report(data, registry, path):
    """A Report from the JSON of --save; `registry` maps section names to Sections."""
    if not isinstance(data, dict):
        raise BadInput(f"{path}: not a bench report (expected a JSON object)")
    sections = data.get("sections")
    if not isinstance(sections, dict):
        raise BadInput(f"{path}: not a bench report (no 'sections' object)")
    report = from_json(Report, dict(data, sections={}), f"{path}: report")
    for name, result in sections.items():
        section = registry.get(name)
        if section is None:
            raise BadInput(f"{path}: unknown section '{name}' (sections: {', '.join(registry)})")
        report.sections[name] = from_json(section.result_type, result, f"{path}: report.sections.{name}")
    return report


def render_text(report, registry):
    m, t = report.machine, report.tools
    out = [
        f"orderfile benchmarks, {report.date}",
        f"machine:  {m.nproc} usable CPUs ({m.cpus} online), {m.cpu_model}, Linux {m.kernel}",
        f"load:     {' '.join(f'{x:.2f}' for x in m.loadavg_start)} at start, "
        f"{' '.join(f'{x:.2f}' for x in m.loadavg_end)} at end (shared machine: expect noise)",
        f"compiler: {t['cc_version']} ({t['cc']})",
        f"linker:   {t['lld_version']}",
        f"gcc:      {t['gcc_version']}",
    ]
    for key, label in [("clang22_version", "clang-22"), ("lld22_version", "lld-22"),
                       ("profdata22_version", "llvm-profdata-22"), ("llvm_symbolizer", "llvm-symbolizer"),
                       ("swift_version", "swift"), ("orderfile", "orderfile")]:
        if t.get(key):
            out.append(f"{label + ':':<9} {t[key]}")
    for name, pin in (report.sources or {}).items():
        out.append(f"source:   {name}: Debian source package {pin.package} {pin.version} "
                   f"(.dsc sha256 {pin.dsc_sha256[:16]}...)")
    if report.runtime:
        r = report.runtime
        out.append(f"runtime:  {r.dir}/libOrderfileRuntime.so, built with {r.built_with}, "
                   f"sources sha256 {r.sources_sha256}")
    for name, res in report.sections.items():
        out.append("")
        out.extend(registry[name].render_text(res))
        out.append("")
        out.append(f"{name}: {verdict(res.passed)}")
    out.append("")
    out.append(f"result: {verdict(report.passed)}")
    return "\n".join(out)
