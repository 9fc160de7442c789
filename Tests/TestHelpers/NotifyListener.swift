import Foundation

/// A datagram socket bound at `path` standing in for systemd's `NOTIFY_SOCKET`: the test reads
/// what the program under test says (`READY=1`, `WATCHDOG=1`, `STOPPING=1`).
public final class NotifyListener: @unchecked Sendable {
  public let path: String
  public let descriptor: CInt

  public init(path: String) throws {
    self.path = path
    unlink(path)
    descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    // (No close here: a throw after every stored property is set runs `deinit`, which closes it.)
    guard bound == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
  }

  deinit {
    close(descriptor)
    unlink(path)
  }

  /// The next message, waiting `milliseconds` at most; `nil` when none came.
  public func receive(milliseconds: Int32) -> String? {
    var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&entry, 1, milliseconds) > 0 else { return nil }
    var buffer = [UInt8](repeating: 0, count: 512)
    let count = recv(descriptor, &buffer, buffer.count, 0)
    return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
  }
}
