import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A Unix-domain socket bound to a path: a file that exists but that no one can open for
/// writing, which is how an output that cannot be written looks.
public final class UnixSocket {
  public let path: String
  private let descriptor: Int32

  public init(path: String) throws {
    self.path = path
    descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw TestSupportError("socket failed: errno \(errno)") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let fits = withUnsafeMutableBytes(of: &address.sun_path) { raw -> Bool in
      guard bytes.count < raw.count else { return false }
      raw.copyBytes(from: bytes)
      return true
    }
    guard fits else {
      close(descriptor)
      throw TestSupportError("socket path too long: \(path)")
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard bound == 0 else {
      close(descriptor)
      throw TestSupportError("bind \(path) failed: errno \(errno)")
    }
  }

  deinit {
    close(descriptor)
    unlink(path)
  }
}
