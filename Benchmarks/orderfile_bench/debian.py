"""Debian packages: installing missing tools, and fetching the pinned source packages."""

import hashlib
import os
import shutil
import stat
import subprocess
from dataclasses import dataclass

from .common import BenchError, note
from .process import run_checked


@dataclass
class SourcePin:
    package: str
    version: str
    dsc_sha256: str

    def dsc_name(self):
        return f"{self.package}_{self.version.split(':', 1)[-1]}.dsc"


@dataclass
class SourceInfo:
    """A pin as the report shows it, with the tree it was unpacked to."""
    package: str
    version: str
    dsc_sha256: str
    tree: str


# The exact Debian source packages measured: apt-get source fetches NAME=VERSION and
# the .dsc must have this digest (apt checks the tarballs against the .dsc).
SOURCE_PINS = {
    "lua": SourcePin("lua5.4", "5.4.4-3+deb12u1", "d47c50154294a68c8a209c5d61bc09e5b22891c01b7c47501ac3f9725eb4a813"),
    # The upstream version before it, for the daily section's regeneration across versions.
    "lua53": SourcePin("lua5.3", "5.3.6-2", "2241dc732aa15a4d09c3c87aaf154eb14d873b8f6eb824faf8313a492a4e14b6"),
    "sqlite3": SourcePin("sqlite3", "3.40.1-2+deb12u2",
                         "ee3459ae9d00939741c7708fc1b8ce1bde12d8c3fb1dfa005bbbc8651d884e23"),
    # A C++ library with a program of its own (libtinyxml2.so and its xmltest), for the
    # norebuild section's gcc and clang builds.
    "tinyxml2": SourcePin("tinyxml2", "9.0.0+dfsg-3.1",
                          "1c60a1d1691419ea45de6a36abc96b6fe12cc519105c617a2a6d891e4455e6e3"),
    # A C++ program of 28 source files whose launch (a dry run) is one quick command, for the
    # measured section's clang++ and g++ builds.
    "ninja": SourcePin("ninja-build", "1.11.1-2~deb12u1",
                       "6235cfc4d7971bd470a46157abe83d6fc254eec6ba664084ee5f0996739aa2fe"),
}
# The temporary deb-src entry: Debian 12's archive and its security archive.
DEB_SRC_LINES = [
    "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main",
    "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-updates main",
    "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security "
    "bookworm-security main",
]


def ensure_debian_packages(wanted, environ):
    """wanted: [(path or command that must exist, Debian package)]; installs the missing ones."""
    missing = sorted({pkg for probe, pkg in wanted
                      if not (os.path.exists(probe) if probe.startswith("/")
                              else shutil.which(probe, path=environ.get("PATH")))})
    if not missing:
        return
    note(f"installing {' '.join(missing)}")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "update", "-qq"], env=env, capture_output=True)
    run_checked(sudo + ["apt-get", "install", "-y", "-qq"] + missing, "installing Debian packages", env=env)


def _dev_null_is_sane():
    try:
        return stat.S_ISCHR(os.stat("/dev/null").st_mode)
    except OSError:
        return False


def _sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch_sources(cache, scratch, environ):
    """Fetches and unpacks the pinned Debian source packages; returns name -> SourceInfo.

    apt-get runs with a private configuration in the scratch directory: a sources list
    holding only the deb-src entries, and its own lists and cache directories. The
    machine's apt configuration is never touched, and the entry and its lists are deleted
    when the download is done. Unpacked trees are kept in `cache` (default
    out/bench-sources, not committed) and reused while their .dsc digest matches the pin.
    """
    os.makedirs(cache, exist_ok=True)
    ensure_debian_packages([("dpkg-source", "dpkg-dev"), ("apt-get", "apt"),
                            ("/usr/share/keyrings/debian-archive-keyring.gpg", "debian-archive-keyring"),
                            ("xz", "xz-utils"), ("tclsh", "tcl")], environ)
    trees, wanted = {}, []
    for name, pin in SOURCE_PINS.items():
        dsc = os.path.join(cache, pin.dsc_name())
        tree = os.path.join(cache, f"{name}-{pin.version}")
        if os.path.exists(dsc) and _sha256_of(dsc) == pin.dsc_sha256 and os.path.isdir(tree):
            trees[name] = tree
        else:
            wanted.append(name)
    if wanted:
        if not _dev_null_is_sane():
            raise BenchError("/dev/null is not a character device (something replaced it with a file), so apt "
                             "cannot verify signatures; restore it: mknod -m 666 /dev/null.new c 1 3 && "
                             "mv /dev/null.new /dev/null")
        apt = os.path.join(scratch, "apt")
        for sub in ("lists/partial", "cache/archives/partial", "parts"):
            os.makedirs(os.path.join(apt, sub), exist_ok=True)
        with open(os.path.join(apt, "sources.list"), "w") as f:
            f.write("\n".join(DEB_SRC_LINES) + "\n")
        options = ["-o", f"Dir::Etc::SourceList={apt}/sources.list", "-o", f"Dir::Etc::SourceParts={apt}/parts",
                   "-o", f"Dir::State::Lists={apt}/lists", "-o", f"Dir::Cache={apt}/cache"]
        try:
            run_checked(["apt-get"] + options + ["update"], "apt-get update (temporary deb-src entry)")
            for name in wanted:
                trees[name] = _fetch_one(name, SOURCE_PINS[name], cache, options)
        finally:
            shutil.rmtree(apt, ignore_errors=True)  # the temporary deb-src entry and its lists
    return {name: SourceInfo(pin.package, pin.version, pin.dsc_sha256, trees[name])
            for name, pin in SOURCE_PINS.items()}


def _fetch_one(name, pin, cache, options):
    offered = run_checked(["apt-cache"] + options + ["showsrc", "--only-source", pin.package],
                          f"apt-cache showsrc {pin.package}")
    versions = [line.split(":", 1)[1].strip() for line in offered.splitlines() if line.startswith("Version:")]
    if pin.version not in versions:
        raise BenchError(f"the mirror no longer offers {pin.package}={pin.version} (it offers "
                         f"{', '.join(versions) or 'nothing'}); update SOURCE_PINS in "
                         "Benchmarks/orderfile_bench/debian.py")
    run_checked(["apt-get"] + options + ["source", "--download-only", f"{pin.package}={pin.version}"],
                f"apt-get source {pin.package}={pin.version}", cwd=cache)
    dsc = os.path.join(cache, pin.dsc_name())
    digest = _sha256_of(dsc)
    if digest != pin.dsc_sha256:
        raise BenchError(f"{os.path.basename(dsc)} has sha256 {digest}, not the pinned {pin.dsc_sha256}")
    tree = os.path.join(cache, f"{name}-{pin.version}")
    shutil.rmtree(tree, ignore_errors=True)
    run_checked(["dpkg-source", "--no-check", "-x", dsc, tree], f"unpacking {os.path.basename(dsc)}")
    return tree
