"""Two programs built here rather than from a C program's Debian source, shared by the measured
and inprocess sections:

  ninja (Debian's ninja-build source, 28 C++ files), compiled with -O2 -ffunction-sections; its
  launch is a dry run (`ninja -n`) over a generated manifest of NINJA_EDGES edges. As ninja's own
  configure.py does, everything but ninja.cc can go into a static library, libninja.a.
  A SwiftPM command-line tool written here (never committed with its dependencies) over
  swift-argument-parser, swift-collections and swift-log, built -c release with -function-sections
  and linked by ld.lld.
"""

import os
import shutil
from dataclasses import dataclass

from .common import ROOT, BenchError
from .process import parallel, run_checked

NINJA_EDGES = 300
SWIFT_PACKAGES = [
    ("swift-argument-parser", "1.8.2", "ArgumentParser"),
    ("swift-collections", "1.6.0", "Collections"),
    ("swift-log", "1.16.2", "Logging"),
]
# Under out/ (never committed), so that a second run rebuilds only the tool, not its dependencies.
SWIFT_PACKAGE = os.path.join(ROOT, "out", "bench-measured-swift", "greet")
SWIFT_ARGS = ["--count", "2", "--loud", "ada", "grace", "linus"]
SWIFT_COMMAND = "Greet --count 2 --loud ada grace linus"
SWIFT_TITLE = "Swift CLI (argument-parser, collections, log)"


# ---- ninja -------------------------------------------------------------------------------

@dataclass(frozen=True)
class NinjaBuild:
    """ninja's objects compiled once; the callers link them."""
    objects: list[str]  # every object, ninja.o (its main) among them
    link: list[str]     # the link command, without objects and output
    env: dict           # the environment the link needs (ld.lld on PATH)
    args: list[str]     # the launch: a dry run over the generated project
    command: str        # the launch as tables show it


def _ninja_sources(tree):
    src = os.path.join(tree, "src")
    skip = ("_test.cc", "_perftest.cc", "-win32.cc", "_bench.cc", ".in.cc")
    return sorted(os.path.join(src, f) for f in os.listdir(src)
                  if f.endswith(".cc") and not f.endswith(skip) and f not in ("browse.cc", "test.cc")
                  and not f.startswith("msvc_helper"))


def _ninja_manifest(directory):
    """A project of NINJA_EDGES copy edges: what `ninja -n` parses, plans and prints."""
    os.makedirs(os.path.join(directory, "src"), exist_ok=True)
    lines = ["rule cc", "  command = cp $in $out", "  description = CC $out", ""]
    for i in range(NINJA_EDGES):
        with open(os.path.join(directory, "src", f"f{i}.c"), "w") as f:
            f.write(f"int f{i};\n")
        lines.append(f"build out/f{i}.o: cc src/f{i}.c")
    lines += ["build all: phony " + " ".join(f"out/f{i}.o" for i in range(NINJA_EDGES)), "default all", ""]
    with open(os.path.join(directory, "build.ninja"), "w") as f:
        f.write("\n".join(lines))


def build_ninja(ctx, work, compiler_name, compiler, lld_dir, cflags=()):
    """Compiles ninja's sources into WORK/obj with `compiler` (plus `cflags`) and writes the
    project its launch plans, WORK/project."""
    tree = ctx.sources["ninja"].tree
    objects_dir = os.path.join(work, "obj")
    os.makedirs(objects_dir, exist_ok=True)
    env = ctx.env({"PATH": lld_dir + os.pathsep + ctx.environ.get("PATH", "")})
    sources = _ninja_sources(tree)
    objects = [os.path.join(objects_dir, os.path.basename(s)[:-3] + ".o") for s in sources]

    def compile_one(source, obj):
        return lambda: run_checked([compiler, "-O2", "-ffunction-sections", "-DNDEBUG", *cflags, "-c", source,
                                    "-o", obj], f"compiling {os.path.basename(source)} with {compiler_name}", env=env)
    parallel([compile_one(s, o) for s, o in zip(sources, objects)], os.cpu_count() or 2)
    project = os.path.join(work, "project")
    _ninja_manifest(project)
    return NinjaBuild(objects=objects, link=[compiler, "-fuse-ld=lld", "-Wl,--build-id"], env=env,
                      args=["-C", project, "-n"], command=f"ninja -C project -n ({NINJA_EDGES} edges)")


def link_ninja_with_library(build, output, extra=()):
    """ninja.o linked against libninja.a (every other object), as ninja's own build links it;
    `extra` goes after the objects (libraries)."""
    main = [o for o in build.objects if os.path.basename(o) == "ninja.o"]
    library = os.path.join(os.path.dirname(output), "libninja.a")
    os.makedirs(os.path.dirname(output), exist_ok=True)
    if os.path.exists(library):
        os.unlink(library)  # `ar r` would keep members of an earlier build
    ar = shutil.which("llvm-ar", path=build.env.get("PATH")) or shutil.which("ar", path=build.env.get("PATH"))
    if not ar:
        raise BenchError("neither llvm-ar nor ar is installed")
    run_checked([ar, "rcs", library] + [o for o in build.objects if o not in main], "archiving libninja.a",
                env=build.env)
    run_checked(build.link + main + [library, "-o", output] + list(extra), f"linking {output}", env=build.env)
    return output


# ---- a Swift package ---------------------------------------------------------------------

SWIFT_MAIN = """import ArgumentParser
import Collections
import Logging

struct Greet: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Greets people, counting their letters.")
  @Option(help: "How many times.") var count = 1
  @Flag(help: "Shout.") var loud = false
  @Argument(help: "Names.") var names: [String] = []

  func run() throws {
    var logger = Logger(label: "greet")
    logger.logLevel = .warning
    var seen = OrderedDictionary<Character, Int>()
    var queue = Deque<String>(names)
    while let name = queue.popFirst() {
      for letter in name { seen[letter, default: 0] += 1 }
      for _ in 0..<count { print(loud ? "HELLO, \\(name.uppercased())!" : "Hello, \\(name).") }
    }
    logger.info("done")
    print(seen.map { "\\($0.key)=\\($0.value)" }.joined(separator: " "))
  }
}
Greet.main()
"""


def _swift_package(directory):
    os.makedirs(os.path.join(directory, "Sources", "Greet"), exist_ok=True)
    deps = ",\n".join(f'    .package(url: "https://github.com/apple/{name}", from: "{version}")'
                      for name, version, _ in SWIFT_PACKAGES)
    products = ", ".join(f'.product(name: "{product}", package: "{name}")' for name, _, product in SWIFT_PACKAGES)
    with open(os.path.join(directory, "Package.swift"), "w") as f:
        f.write("// swift-tools-version:6.0\nimport PackageDescription\n\nlet package = Package(\n"
                f'  name: "greet",\n  dependencies: [\n{deps}\n  ],\n'
                f'  targets: [.executableTarget(name: "Greet", dependencies: [{products}])]\n)\n')
    with open(os.path.join(directory, "Sources", "Greet", "main.swift"), "w") as f:
        f.write(SWIFT_MAIN)


def swift_package_build(ctx):
    """Writes the package and returns (the `swift` driver, the `swift build` command of its release
    build, the environment, the binary that command links)."""
    swift = shutil.which("swift", path=ctx.environ.get("PATH")) or "/opt/swift/usr/bin/swift"
    if not os.path.exists(swift):
        raise BenchError("swift is not installed")
    _swift_package(SWIFT_PACKAGE)
    env = ctx.env({"PATH": os.path.dirname(swift) + os.pathsep + ctx.environ.get("PATH", "")})
    build = [swift, "build", "-c", "release", "--package-path", SWIFT_PACKAGE, "-Xswiftc", "-Xfrontend", "-Xswiftc",
             "-function-sections", "-Xswiftc", "-use-ld=lld", "-Xlinker", "--build-id"]
    bindir = run_checked(build + ["--show-bin-path"], "locating the Swift package's binary", env=env).strip()
    return swift, build, env, os.path.join(bindir, "Greet")


def swift_package_instrumented(ctx, flags):
    """The package built with `flags` (`orderfile flags --language swift --instrument`'s
    arguments) in a scratch folder of its own, kept under out/ as the release build is;
    returns the binary."""
    swift, _, env, _ = swift_package_build(ctx)
    build = [swift, "build", "-c", "release", "--package-path", SWIFT_PACKAGE, "--scratch-path",
             os.path.join(SWIFT_PACKAGE, ".build-instrumented")] + list(flags)
    run_checked(build, "building the Swift package (instrumented)", env=env, timeout=1800)
    bindir = run_checked(build + ["--show-bin-path"], "locating the instrumented Swift binary", env=env).strip()
    return os.path.join(bindir, "Greet")
