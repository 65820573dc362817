// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "orderfile",
  products: [
    .executable(name: "orderfile", targets: ["orderfile"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    // The configuration file of `orderfile regenerate` is YAML.
    .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
  ],
  targets: [
    // The C runtime linked into instrumented programs. SwiftPM only compiles it, so that
    // every build checks it, and links it into nothing; what programs link (and the tests
    // run) is built by Scripts/build-runtime with a plain C compiler, the one place its flags
    // are written, since a SwiftPM dynamic library would pull in libswiftCore.
    .target(
      name: "OrderfileRuntime",
      dependencies: ["OrderfileTraceFormat"],
      linkerSettings: [.linkedLibrary("pthread")]
    ),
    // The in-process recorder and the page probe, libraries `record` and `estimate --measure`
    // preload into an unmodified program: like the runtime, SwiftPM only compiles them and
    // links them into nothing; Scripts/build-runtime builds what is preloaded.
    // Neither has a public header: nothing imports them.
    .target(name: "OrderfileInProcess", dependencies: ["OrderfileTraceFormat"], publicHeadersPath: "."),
    .target(name: "OrderfilePageProbe", dependencies: ["OrderfileTraceFormat"], publicHeadersPath: "."),
    // The trace format, and which libraries are the system's: C headers that the runtime,
    // the recorders and the probe compile and Swift imports.
    .target(name: "OrderfileTraceFormat"),
    .systemLibrary(
      name: "CLibdw",
      pkgConfig: "libdw",
      providers: [.apt(["libdw-dev"])]
    ),
    // Rust demangling (libiberty's cplus_demangle with DMGL_RUST).
    .systemLibrary(name: "CLibiberty", providers: [.apt(["libiberty-dev"])]),
    // The ptrace tracer that records unmodified programs (orderfile record --no-rebuild).
    .target(name: "OrderfileTracer", cSettings: [.unsafeFlags(["-O2"])]),
    .target(name: "OrderfileSupport"),
    .target(name: "OrderfileTrace", dependencies: ["OrderfileTraceFormat", "OrderfileSupport"]),
    .target(
      name: "OrderfileSymbolization",
      dependencies: ["CLibdw", "CLibiberty", "OrderfileSupport"],
      linkerSettings: [.linkedLibrary("stdc++")]
    ),
    .target(
      name: "OrderfileOrdering",
      dependencies: ["OrderfileTrace", "OrderfileSymbolization", "OrderfileSupport"]
    ),
    .target(name: "OrderfileBuild", dependencies: ["OrderfileOrdering", "OrderfileSymbolization", "OrderfileSupport"]),
    .target(
      name: "OrderfileLayout",
      dependencies: ["OrderfileTrace", "OrderfileSymbolization", "OrderfileOrdering", "OrderfileSupport"]
    ),
    .target(
      name: "OrderfileMerge",
      dependencies: ["OrderfileTrace", "OrderfileSymbolization", "OrderfileOrdering", "OrderfileSupport"]
    ),
    .target(
      name: "OrderfileDiff",
      dependencies: ["OrderfileOrdering", "OrderfileLayout", "OrderfileSupport"]
    ),
    .target(
      name: "OrderfileRecording",
      dependencies: [
        "OrderfileTracer", "OrderfileTraceFormat", "OrderfileTrace", "OrderfileSymbolization", "OrderfileOrdering",
        "OrderfileSupport",
      ]
    ),
    // The optional last step: LLVM BOLT rewrites a release binary with the first-call order
    // and splits out the blocks its own launch profile never ran.
    .target(
      name: "OrderfileBolt",
      dependencies: ["OrderfileOrdering", "OrderfileSymbolization", "OrderfileSupport"]
    ),
    .target(
      name: "OrderfileProfile",
      dependencies: ["OrderfileTrace", "OrderfileSymbolization", "OrderfileLayout", "OrderfileSupport"]
    ),
    // The daily job (`orderfile regenerate`): its configuration file and every step.
    .target(
      name: "OrderfileRegeneration",
      dependencies: [
        "OrderfileRecording", "OrderfileMerge", "OrderfileDiff", "OrderfileLayout", "OrderfileOrdering",
        "OrderfileBuild", "OrderfileSymbolization", "OrderfileSupport", .product(name: "Yams", package: "Yams"),
      ]
    ),
    // One request type per command of the tool: what each command does and prints, so
    // that the executable only parses arguments and writes out what a request returns.
    .target(
      name: "OrderfileCommands",
      dependencies: [
        "OrderfileTrace", "OrderfileSymbolization", "OrderfileOrdering", "OrderfileLayout", "OrderfileMerge",
        "OrderfileDiff", "OrderfileProfile", "OrderfileBuild", "OrderfileRecording", "OrderfileBolt",
        "OrderfileSupport", "OrderfileRegeneration",
      ]
    ),
    .executableTarget(
      name: "orderfile",
      dependencies: ["OrderfileCommands", .product(name: "ArgumentParser", package: "swift-argument-parser")]
    ),
    .target(
      name: "_OrderfileTestSupport",
      dependencies: ["OrderfileSupport"],
      path: "Tests/_OrderfileTestSupport"
    ),
    .testTarget(
      name: "OrderfileSupportTests",
      dependencies: ["OrderfileSupport", "_OrderfileTestSupport"]
    ),
    .testTarget(
      name: "OrderfileTraceTests", dependencies: ["OrderfileTrace", "OrderfileTraceFormat", "_OrderfileTestSupport"]
    ),
    .testTarget(
      name: "OrderfileSymbolizationTests",
      dependencies: ["OrderfileSymbolization", "_OrderfileTestSupport"]
    ),
    .testTarget(
      name: "OrderfileOrderingTests",
      dependencies: ["OrderfileOrdering", "_OrderfileTestSupport"]
    ),
    .testTarget(
      name: "OrderfileBuildTests",
      dependencies: ["OrderfileBuild", "_OrderfileTestSupport"]
    ),
    .testTarget(
      name: "OrderfileLayoutTests",
      dependencies: ["OrderfileLayout", "_OrderfileTestSupport"]
    ),
    .testTarget(
      name: "OrderfileMergeTests",
      dependencies: ["OrderfileMerge", "_OrderfileTestSupport"]
    ),
    .testTarget(
      name: "OrderfileDiffTests",
      dependencies: ["OrderfileDiff", "_OrderfileTestSupport"]
    ),
    .testTarget(
      name: "OrderfileCommandsTests",
      dependencies: ["OrderfileCommands", "_OrderfileTestSupport"]
    ),
    .testTarget(
      name: "OrderfileBoltTests",
      dependencies: ["OrderfileBolt", "_OrderfileTestSupport"]
    ),
    .testTarget(
      name: "OrderfileRegenerationTests",
      dependencies: ["OrderfileRegeneration", "OrderfileDiff", "OrderfileLayout", "OrderfileSymbolization", "_OrderfileTestSupport"]
    ),
    .testTarget(
      name: "OrderfileProfileTests",
      dependencies: ["OrderfileProfile", "_OrderfileTestSupport"]
    ),
    .testTarget(
      name: "OrderfileRecordingTests",
      dependencies: [
        "OrderfileRecording", "OrderfileTrace", "OrderfileTraceFormat", "OrderfileSymbolization", "OrderfileProfile", "_OrderfileTestSupport",
      ]
    ),
    .testTarget(name: "RuntimeTests", dependencies: ["OrderfileTrace", "OrderfileRecording", "_OrderfileTestSupport"]),
    .testTarget(
      name: "IntegrationTests",
      dependencies: ["orderfile", "OrderfileTrace", "OrderfileOrdering", "_OrderfileTestSupport"]
    ),
    .testTarget(
      name: "CLITests",
      dependencies: ["orderfile", "OrderfileTrace", "OrderfileSymbolization", "_OrderfileTestSupport"]
    ),
  ]
)
