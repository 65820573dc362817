import Foundation

/// A fresh directory under the system's temporary folder, removed on `remove()`.
public final class TemporaryDirectory: @unchecked Sendable {
  public let path: String

  public init(_ label: String = "orderfile-test") throws {
    let base =
      NSTemporaryDirectory().hasSuffix("/") ? String(NSTemporaryDirectory().dropLast()) : NSTemporaryDirectory()
    var template = Array((base + "/\(label).XXXXXX").utf8CString)
    guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw TestSupportError("mkdtemp failed for \(label)")
    }
    path = String(cString: created)
  }

  /// `name` inside this directory.
  public func file(_ name: String) -> String { path + "/" + name }

  public func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }

  deinit { remove() }
}

/// A failure inside test scaffolding (not the code under test).
public struct TestSupportError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
