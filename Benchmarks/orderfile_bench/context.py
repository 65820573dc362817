"""One invocation's context: options, tools, the scratch directory, and what several
sections share, each built once on first use."""

import os
import tempfile
from functools import cached_property

from .common import ROOT
from .debian import fetch_sources
from .machine import build_runtime, machine_info
from .process import clean_env, find_tool, first_line
from .realprograms import build_program, record_launch
from .toolchain import build_hooks, install_llvm22, orderfile_tool


class Context:
    def __init__(self, options, environ):
        self.options = options
        # A copy of the environment the bench started with. Commands get it, or a
        # variant of it, explicitly: the bench never changes its own environment.
        self.environ = dict(environ)
        self.cc = find_tool("clang", self.environ, "CC")
        self.lld = find_tool("ld.lld", self.environ)
        self.machine = machine_info()
        self.tools = {
            "cc": self.cc,
            "cc_version": first_line([self.cc, "--version"]),
            "lld_version": first_line([self.lld, "--version"]),
            "gcc_version": first_line(["gcc", "--version"]),
        }
        self.scratch = tempfile.mkdtemp(prefix="orderfile-bench-")
        self._builds = {}
        self._launches = {}

    def env(self, extra=None):
        """The environment for a measured program: the bench's own, less ORDERFILE_*, plus `extra`."""
        return clean_env(self.environ, extra)

    @cached_property
    def runtime(self):
        """Where libOrderfileRuntime.so is (machine.RuntimeInfo), built on first use."""
        return build_runtime(self.options.runtime_dir, self.scratch, self.cc, self.environ)

    def runtime_if_built(self):
        return self.__dict__.get("runtime")

    @cached_property
    def orderfile(self):
        """Path of the orderfile CLI."""
        return orderfile_tool(self)

    @cached_property
    def llvm22(self):
        return install_llvm22(self)

    @cached_property
    def hooks(self):
        """toolchain.Hooks for the real programs."""
        return build_hooks(self, os.path.join(self.scratch, "hooks"))

    @cached_property
    def sources(self):
        """Program name -> debian.SourceInfo, fetched on first use."""
        cache = os.path.abspath(self.options.source_cache or os.path.join(ROOT, "out", "bench-sources"))
        return fetch_sources(cache, self.scratch, self.environ)

    def sources_if_fetched(self):
        return self.__dict__.get("sources")

    def build(self, program):
        """realprograms.ProgramBuild of `program`, built on first use."""
        if program.name not in self._builds:
            self._builds[program.name] = build_program(self, program)
        return self._builds[program.name]

    def launch(self, program):
        """realprograms.LaunchArtifacts of `program`, recorded on first use."""
        if program.name not in self._launches:
            self._launches[program.name] = record_launch(self, program)
        return self._launches[program.name]

    def recorded_launch(self, program):
        """The launch of `program` if a section already recorded it, else None."""
        return self._launches.get(program.name)
