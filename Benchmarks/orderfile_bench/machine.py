"""What a report says about where it ran: the machine, and the runtime it measured."""

import hashlib
import os
import platform
from dataclasses import dataclass, field

from .common import ROOT, RUNTIME_SRC, TRACE_FORMAT_SRC, BenchError
from .process import run_checked


@dataclass
class Machine:
    nproc: int
    cpus: int
    cpu_model: str
    kernel: str
    loadavg_start: list[float]
    loadavg_end: list[float] = field(default_factory=list)
    os: str | None = None
    memory_kib: int | None = None


def _first_field(path, prefix, sep=":"):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(sep, 1)[1].strip()
    except OSError:
        pass
    return None


def machine_info():
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    memory = _first_field("/proc/meminfo", "MemTotal")
    os_name = _first_field("/etc/os-release", "PRETTY_NAME=", "=")
    return Machine(
        nproc=usable,
        cpus=os.cpu_count(),
        cpu_model=_first_field("/proc/cpuinfo", "model name") or platform.processor() or "unknown",
        kernel=platform.release(),
        loadavg_start=list(os.getloadavg()),
        os=os_name.strip('"') if os_name else None,
        memory_kib=int(memory.split()[0]) if memory and memory.split()[0].isdigit() else None,
    )


@dataclass
class RuntimeInfo:
    sources_sha256: str
    dir: str
    built_with: str


def sources_digest(*directories):
    """The runtime's C sources and the trace format header it writes, as one short digest."""
    h = hashlib.sha256()
    for directory in directories:
        for base, _, files in sorted(os.walk(directory)):
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    path = os.path.join(base, name)
                    h.update(os.path.relpath(path, os.path.dirname(directory)).encode())
                    with open(path, "rb") as f:
                        h.update(f.read())
    return h.hexdigest()[:12]


def build_runtime(given_dir, scratch, cc, environ):
    """libOrderfileRuntime.so: the one in `given_dir` (--runtime-dir), or built into `scratch`."""
    digest = sources_digest(RUNTIME_SRC, TRACE_FORMAT_SRC)
    if given_dir:
        d = os.path.abspath(given_dir)
        if not os.path.exists(os.path.join(d, "libOrderfileRuntime.so")):
            raise BenchError(f"no libOrderfileRuntime.so in '{d}'")
        return RuntimeInfo(sources_sha256=digest, dir=d, built_with="given (--runtime-dir)")
    d = os.path.join(scratch, "runtime")
    run_checked([os.path.join(ROOT, "Scripts", "build-runtime"), d], "building the runtime",
                env=dict(environ, CC=cc))
    return RuntimeInfo(sources_sha256=digest, dir=d, built_with=f"Scripts/build-runtime with {os.path.basename(cc)}")
