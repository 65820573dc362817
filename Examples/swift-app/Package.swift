// swift-tools-version:6.0
import PackageDescription

// A small SwiftPM application for orderfile to order: an executable over a library, with
// a C target as many packages have.
// Build flags for recording and for the ordered release build: see README.md.
let package = Package(
  name: "swift-app",
  targets: [
    .target(name: "CSwiftAppSupport"),
    .target(name: "SwiftAppCore", dependencies: ["CSwiftAppSupport"]),
    .executableTarget(name: "swiftapp", dependencies: ["SwiftAppCore"]),
  ]
)
