"""Running commands. Every environment a command gets is passed to it explicitly: nothing
here, nor anywhere in the bench, changes this process's own environment."""

import os
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

from .common import BenchError, note, progress, progress_done
from .stats import rotations

GNU_TIME = "/usr/bin/time"


def clean_env(base, extra=None):
    """`base` without the runtime's ORDERFILE_* variables, plus `extra`: what a measured
    program gets, so a variable the caller happened to export cannot change a run."""
    env = {k: v for k, v in base.items() if not k.startswith("ORDERFILE_")}
    env.update(extra or {})
    return env


def run_checked(cmd, what, cwd=None, env=None, timeout=None):
    """Runs cmd and returns its stdout; raises BenchError with the tail of its output when it fails."""
    note("$ " + " ".join(cmd))
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, timeout=timeout, capture_output=True, text=True)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BenchError(f"{what}: {e}")
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-15:]
        raise BenchError(f"{what} failed (exit {p.returncode}):\n  " + "\n  ".join(tail))
    return p.stdout


def first_line(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
        return out.strip().splitlines()[0] if out.strip() else "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "not found"


def find_tool(name, environ, env_var=None):
    if env_var and environ.get(env_var):
        return environ[env_var]
    path = shutil.which(name, path=environ.get("PATH"))
    if path:
        return path
    fallback = os.path.join("/opt/swift/usr/bin", name)
    if os.path.exists(fallback):
        return fallback
    raise BenchError(f"cannot find {name} (set {env_var or 'PATH'})")


def _read_all(f):
    f.seek(0)
    return f.read().decode(errors="replace")


class Timed(NamedTuple):
    wall: float  # seconds
    cpu: float  # user + system seconds, its children's included
    stdout: str
    stderr: str
    peak_kib: int | None = None  # with peak: the largest RSS of the command or any of its children


def timed_run(cmd, env, peak=False):
    """Runs cmd once; raises BenchError when it fails. With peak, under GNU time (see run_measured)."""
    full, peak_path = _under_gnu_time(cmd, peak)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        p = subprocess.Popen(full, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        stdout, stderr = _read_all(out), _read_all(err)
    peak_kib = _read_peak(peak_path)
    if p.returncode != 0:
        raise BenchError(f"{' '.join(cmd)} exited {p.returncode}: {stderr.strip()[-500:]}")
    return Timed(wall, usage.ru_utime + usage.ru_stime, stdout, stderr, peak_kib)


def _under_gnu_time(cmd, peak):
    """cmd, under GNU time writing its peak RSS (%M) to a temporary file when peak is set, and
    that file's path (None without peak)."""
    if not peak:
        return cmd, None
    peak_file = tempfile.NamedTemporaryFile(prefix="bench-peak-", delete=False)
    peak_file.close()
    return [GNU_TIME, "-f", "%M", "-o", peak_file.name] + cmd, peak_file.name


def _read_peak(path):
    if path is None:
        return None
    with open(path) as f:
        lines = [line.strip() for line in f if line.strip()]
    os.unlink(path)
    return int(lines[-1]) if lines and lines[-1].isdigit() else None


def run_measured(cmd, what, env=None, cwd=None, stdin_path=None, check=True, peak=False):
    """Runs cmd; returns (wall seconds, peak RSS in KiB or None, stdout, stderr). Raises
    BenchError when it fails and check is set.

    With peak, the command runs under GNU time, which forks it from a small process and
    reports its ru_maxrss (%M). A child forked straight from this script would not do: at
    exec the kernel carries the forking process's high-water RSS into the child's ru_maxrss,
    so every figure would be at least this Python process's size. GNU time adds about a
    millisecond, so timing-only runs go without it.
    """
    full, peak_path = _under_gnu_time(cmd, peak)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        try:
            start = time.perf_counter()
            p = subprocess.Popen(full, stdout=out, stderr=err, stdin=stdin, env=env, cwd=cwd)
            _, status, _ = os.wait4(p.pid, 0)
            wall = time.perf_counter() - start
        except OSError as e:
            raise BenchError(f"{what}: {e}")
        finally:
            if stdin_path:
                stdin.close()
        p.returncode = os.waitstatus_to_exitcode(status)
        stdout, stderr = _read_all(out), _read_all(err)
    peak_kib = _read_peak(peak_path)
    if check and p.returncode != 0:
        tail = (stderr or stdout).strip().splitlines()[-15:]
        raise BenchError(f"{what} failed (exit {p.returncode}): {' '.join(cmd)}\n  " + "\n  ".join(tail))
    return wall, peak_kib, stdout, stderr


def parallel(jobs, workers):
    """Runs callables on `workers` threads; returns their results in order, re-raising the first error."""
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return [f.result() for f in [pool.submit(job) for job in jobs]]


def evict_from_page_cache(path):
    """Drops the file's pages from the page cache (after writing back any dirty ones), so
    the next run reads it from storage."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def clear_dir(d):
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))


def interleave(names, rounds, measure, what, after_round=None):
    """Calls measure(name) for every name, `rounds` times, rotating which goes first, so the
    variants of a round run back to back and no variant always follows the same one.
    Returns one {name: result} per round; `after_round` runs between rounds (cleaning up)."""
    results = []
    for r, order in rotations(list(names), rounds):
        this_round = {}
        for name in order:
            progress(f"{what}, round {r + 1}/{rounds}, {name}")
            this_round[name] = measure(name)
        results.append(this_round)
        if after_round:
            after_round()
    progress_done()
    return results
