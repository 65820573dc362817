import SwiftAppCore

#if canImport(Glibc)
  import Glibc
#endif

// The launch initializes every feature the first screen needs; handlers named on the
// command line ("sync.sync") run after it, as the commands of a real application would.
let launcher = Launcher()
let summary = launcher.launch()
print("swiftapp: \(summary.handlers) launch handlers, \(summary.words) words, \(summary.entries) entries")
print("checksum \(String(summary.checksum, radix: 16))")
for name in CommandLine.arguments.dropFirst() {
  guard let checksum = launcher.run(name) else {
    print("swiftapp: no handler named '\(name)'")
    exit(64)
  }
  print("\(name): checksum \(String(checksum, radix: 16))")
}
