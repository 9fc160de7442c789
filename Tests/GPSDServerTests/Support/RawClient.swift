import Foundation
import Plumbing

/// A hand-made gpsd client over a plain socket, for sending what real clients never would.
final class RawClient {
  let socket: FileDescriptor
  private var received: [UInt8] = []

  init(port: Int, receiveBuffer: Int? = nil) throws {
    socket = try FileDescriptor.connectTCP(host: "127.0.0.1", port: port)
    if var size = receiveBuffer.map(CInt.init) {
      setsockopt(socket.rawValue, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<CInt>.size))
    }
  }

  deinit { try? socket.close() }

  func send(_ text: String) throws {
    try socket.writeAll(Array(text.utf8))
  }

  /// Reads for `seconds` (or until `until` says enough), giving all lines received so far.
  @discardableResult
  func read(for seconds: Double = 1, until done: ([String]) -> Bool = { _ in false }) -> [String] {
    let deadline = Date().addingTimeInterval(seconds)
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while Date() < deadline, !done(lines) {
      var descriptor = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 50) > 0 else { continue }
      let count = buffer.withUnsafeMutableBytes { raw in (try? socket.read(into: raw)) ?? -1 }
      if count <= 0 { break }
      received += buffer[0..<count]
    }
    return lines
  }

  /// Whether the server has closed the connection (a read gives end of file).
  var isClosedByServer: Bool {
    var descriptor = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, 200) > 0 else { return false }
    var byte: UInt8 = 0
    return recv(socket.rawValue, &byte, 1, CInt(MSG_PEEK)) == 0
  }

  var lines: [String] {
    received.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
  }

  /// Drops the connection at once, with a reset rather than a goodbye.
  func abort() {
    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
    setsockopt(socket.rawValue, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    try? socket.close()
  }
}
