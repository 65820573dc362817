#!/usr/bin/env python3
# Writes a SwiftPM package whose launch runs functions that have no symbol: each unit's
# closures capture a class instance and a string, and the compiler destroys such a closure
# context with a private function in a section named after an assembler-local label
# (.text..Lobjectdestroy.N), which gets no symbol at all.
#
# Usage: make-swift-package.py UNITS DIRECTORY
import os
import sys

n = int(sys.argv[1])
package = sys.argv[2]
out = os.path.join(package, "Sources", "Launch")
os.makedirs(out, exist_ok=True)
with open(os.path.join(package, "Package.swift"), "w") as manifest:
    manifest.write('// swift-tools-version:6.0\nimport PackageDescription\n'
                   'let package = Package(name: "Launch", targets: [.executableTarget(name: "Launch")])\n')
for i in range(n):
    body = [f"""final class Node{i} {{ var value: Int; init(_ v: Int) {{ value = v }} }}
// Runs at launch: each closure context it drops is destroyed by a function without a
// symbol (.text..Lobjectdestroy.N), emitted after the unused function below.
@inline(never) func step{i}(_ seed: Int) -> Int {{
  let node = Node{i}(seed &+ {i})
  let label = "unit{i}-\\(seed)"
  var work: [() -> Int] = []
  work.append {{ node.value &* {i + 3} &+ label.utf8.count }}
  work.append {{ [node, label] in node.value &+ label.count &+ {i} }}
  return work.reduce(0) {{ $0 &+ $1() }}
}}
// Never runs at launch: it keeps the launch code of the units pages apart.
@inline(never) func unused{i}(_ x: Int) -> Int {{
  var a = x
"""]
    for k in range(70):
        body.append(f"  a = (a &* {k*2+3}) ^ (a >> {k % 13 + 1}) &+ {i*100+k}\n  if a % {k+7} == {k % 5} {{ a = a &+ helper{i}(a, {k}) }}\n")
    body.append(f"  return a\n}}\n@inline(never) func helper{i}(_ x: Int, _ k: Int) -> Int {{ x &* {i+1} &+ k }}\n")
    open(os.path.join(out, f"Unit{i}.swift"), "w").write("".join(body))
main = ["var total = 0\nlet seed = CommandLine.arguments.count\n"]
for i in range(n): main.append(f"total = total &+ step{i}(seed)\n")
main.append("if CommandLine.arguments.count > 5 {\n")
for i in range(n): main.append(f"  total = total &+ unused{i}(seed)\n")
main.append("}\nprint(total)\n")
open(os.path.join(out, "main.swift"), "w").write("".join(main))
