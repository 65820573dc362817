"""An unmodified launch timed by the kernel: the baseline the inprocess section holds `report`'s
phases against.

Why it is fair: it shares none of the recorders' assumptions. Nothing is preloaded into the
program, nothing is planted before it runs, no clock of the recorder's is read and no time is
subtracted. The kernel stamps four events on one clock (tracefs, trace_clock mono):
  - process start: the scheduler's `sched_process_fork` of the child (the recorders start their
    clock just before they spawn it);
  - the entry of a function, by a uprobe on the unmodified binary's file: `main`, and the
    function a recorder saw first ("first hook"), as each recorder's report names it;
  - exit: the `sched_process_exit` of the process's last thread (`group_dead`).
The programs a launch starts by exec (clang's -cc1 and ld.lld) are timed from their
`sched_process_exec` to their exit (`exec_spans`), in the plain launch and under a recorder alike.
A uprobe is one breakpoint the kernel handles, a few microseconds per call of the probed
function; `main` and the usual first hooks (`_init`, constructors) run once.

The events go to a tracefs instance of the bench's own, filtered to the bench's process and its
descendants (set_event_pid with event-fork); its uprobes are named after the bench's pid and
removed at the end, as is the instance. tracefs is mounted in the scratch directory when it is
not mounted already. It needs root and a kernel with uprobes; without them the baseline is
skipped with the reason.
"""

import os
import re
import subprocess

from .common import note
from .process import run_checked, run_measured


class ProbeUnavailable(Exception):
    """No baseline on this machine; the message says why."""


_SCHED_EVENTS = ("sched/sched_process_fork", "sched/sched_process_exec", "sched/sched_process_exit")
_LINE = re.compile(r"-(\d+)\s+\[\d+\]\s+\S+\s+(\d+)\.(\d+):\s+(\w+):\s*(.*)$")
_FIELD = re.compile(r"(\w+)=(\S+)")


def _tracefs():
    with open("/proc/mounts") as f:
        for line in f:
            parts = line.split()
            if len(parts) > 2 and parts[2] == "tracefs":
                return parts[1]
    return None


def _load_segments(path):
    """(vaddr, memsz, offset) of each PT_LOAD, from readelf."""
    out = run_checked(["readelf", "-lW", path], f"readelf -l {path}")
    segments = []
    for line in out.splitlines():
        fields = line.split()
        if fields and fields[0] == "LOAD":
            segments.append((int(fields[2], 16), int(fields[5], 16), int(fields[1], 16)))
    return segments


def file_offset(path, symbol):
    """The file offset of `symbol`'s entry in the ELF file `path` (a function defined there, as nm
    names it, demangled), or None."""
    address = None
    for dynamic in ([], ["-D"]):
        p = subprocess.run(["nm", "-C", "--defined-only"] + dynamic + [path], capture_output=True, text=True)
        for line in p.stdout.splitlines():
            fields = line.split(" ", 2)
            if len(fields) == 3 and fields[1] in "TtWi" and fields[2] == symbol:
                address = int(fields[0], 16)
                break
        if address is not None:
            break
    if address is None:
        return None
    for vaddr, memsz, offset in _load_segments(path):
        if vaddr <= address < vaddr + memsz:
            return address - vaddr + offset
    return None


class LaunchProbe:
    """Times launches of unmodified binaries with the kernel's events; a context manager."""

    def __init__(self, scratch):
        if os.geteuid() != 0:
            raise ProbeUnavailable("kernel-timed baseline needs root (tracefs and uprobes)")
        self.mounted = None
        root = _tracefs()
        if root is None:
            root = os.path.join(scratch, "tracefs")
            os.makedirs(root, exist_ok=True)
            p = subprocess.run(["mount", "-t", "tracefs", "nodev", root], capture_output=True, text=True)
            if p.returncode != 0:
                raise ProbeUnavailable(f"kernel-timed baseline: cannot mount tracefs: {p.stderr.strip()}")
            self.mounted = root
        self.root = root
        if not os.path.exists(os.path.join(root, "uprobe_events")):
            self.close()
            raise ProbeUnavailable("kernel-timed baseline: this kernel has no uprobes")
        self.group = f"orderfile_bench_{os.getpid()}"
        self.instance = os.path.join(root, "instances", self.group)
        self.events = {}  # (path, symbol) -> event name
        try:
            os.makedirs(self.instance, exist_ok=True)
            self._write("trace_clock", "mono")
            self._write("set_event_pid", str(os.getpid()))
            self._write("options/event-fork", "1")
            self._write("tracing_on", "0")
            for event in _SCHED_EVENTS:
                self._write(f"events/{event}/enable", "1")
        except OSError as e:
            self.close()
            raise ProbeUnavailable(f"kernel-timed baseline: tracefs refused a setting: {e}")

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def _write(self, name, value, root=None):
        with open(os.path.join(root or self.instance, name), "w") as f:
            f.write(value)

    def _define(self, line):
        """Appends to uprobe_events: O_APPEND without open(..., "a"), whose seek to the end tracefs
        refuses (EINVAL); truncating would remove every other uprobe on the machine."""
        fd = os.open(os.path.join(self.root, "uprobe_events"), os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)

    def probe(self, path, symbol):
        """Defines a uprobe on `symbol`'s entry in `path`; returns its event name, or None when
        the symbol is not found there."""
        key = (os.path.realpath(path), symbol)
        if key not in self.events:
            offset = file_offset(key[0], symbol)
            if offset is None:
                note(f"kernel-timed baseline: no function {symbol} in {path}")
                return None
            name = f"p{len(self.events)}"
            self._define(f"p:{self.group}/{name} {key[0]}:0x{offset:x}\n")
            self.events[key] = name
        return self.events[key]

    def launch(self, cmd, what, env, probes):
        """Runs `cmd` once with the uprobes named in `probes` ({label: event name}) enabled.
        Returns (wall seconds, {label: ns from process start} with "exit" among them; a label
        whose function did not run is missing, the events as tracefs printed them)."""
        wall, text = self.traced(lambda: run_measured(cmd, what, env=env)[0], probes.values())
        return wall, _times(text, os.getpid(), probes), text

    def traced(self, run, uprobes=()):
        """Calls `run()` with the scheduler's events and the uprobes named in `uprobes` on (none for
        a recording: the recorder copies the code a uprobe would be in); returns what `run`
        returned and the events as tracefs printed them (for `_times` and `exec_spans`)."""
        uprobes = set(uprobes)
        self._write("trace", "")
        for name in uprobes:
            self._write(f"events/{self.group}/{name}/enable", "1")
        self._write("tracing_on", "1")
        try:
            result = run()
        finally:
            self._write("tracing_on", "0")
            for name in uprobes:
                self._write(f"events/{self.group}/{name}/enable", "0")
        with open(os.path.join(self.instance, "trace")) as f:
            return result, f.read()

    def close(self):
        if getattr(self, "instance", None) and os.path.isdir(self.instance):
            try:
                for event in _SCHED_EVENTS:
                    self._write(f"events/{event}/enable", "0")
                os.rmdir(self.instance)
            except OSError as e:
                note(f"kernel-timed baseline: could not remove {self.instance}: {e}")
        for name in getattr(self, "events", {}).values():
            try:
                self._define(f"-:{self.group}/{name}\n")
            except OSError as e:
                note(f"kernel-timed baseline: could not remove uprobe {name}: {e}")
        self.events = {}
        if self.mounted:
            subprocess.run(["umount", self.mounted], capture_output=True)
            self.mounted = None


def _events(text):
    """(pid, event, ns, {field: value}) of each event line tracefs printed, in order."""
    for line in text.splitlines():
        m = _LINE.search(line)
        if m:
            ns = int(m.group(2)) * 1_000_000_000 + int(m.group(3).ljust(9, "0")[:9])
            yield int(m.group(1)), m.group(4), ns, dict(_FIELD.findall(m.group(5)))


def _times(text, parent, probes):
    """Event times of the first process `parent` forked, in ns from that fork."""
    start, child, family, hits, exits = None, None, set(), {}, []
    by_event = {name: label for label, name in probes.items()}
    for pid, event, ns, fields in _events(text):
        if event == "sched_process_fork":
            if child is None and pid == parent:
                start, child = ns, int(fields["child_pid"])
                family.add(child)
            elif pid in family:
                family.add(int(fields["child_pid"]))
        elif event == "sched_process_exit":
            if pid in family and fields.get("group_dead") == "true":
                exits.append(ns)
        elif event in by_event and pid in family and by_event[event] not in hits:
            hits[by_event[event]] = ns
    if start is None or not exits:
        return {}
    times = {label: ns - start for label, ns in hits.items()}
    times["exit"] = max(exits) - start
    return times


def exec_spans(text, parent):
    """Every program the bench's process `parent` started, directly or not, that called exec: a list
    of (pid, file it executed, exec ns, exit ns) in exec order; exit is None for one whose exit is
    not in the events. A thread's or an exec-less fork child's exit counts as its process's, the
    last one (a process ends with its last thread: ld.lld's last thread is a worker's)."""
    family, owner, execs, exits = set(), {}, {}, {}
    for pid, event, ns, fields in _events(text):
        if event == "sched_process_fork" and (pid == parent or pid in family):
            family.add(int(fields["child_pid"]))
            owner[int(fields["child_pid"])] = pid
        elif event == "sched_process_exec" and pid in family and pid not in execs:
            execs[pid] = (fields.get("filename", ""), ns)
        elif event == "sched_process_exit" and pid in family and fields.get("group_dead") == "true":
            exits[pid] = ns

    def process(pid):
        while pid not in execs and pid in owner:
            pid = owner[pid]
        return pid

    ended = {}
    for pid, ns in exits.items():
        who = process(pid)
        ended[who] = max(ended.get(who, ns), ns)
    return sorted(((pid, path, ns, ended.get(pid)) for pid, (path, ns) in execs.items()), key=lambda span: span[2])
