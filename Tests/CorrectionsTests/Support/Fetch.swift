import Foundation
import Plumbing
import TestHelpers

/// The body of an HTTP/1.0 GET of `path` on 127.0.0.1:`port`, `nil` when nothing answers.
func fetch(_ path: String, port: Int) async -> String? {
  try? await offThePool {
    let socket = try FileDescriptor.connectTCP(host: "127.0.0.1", port: port)
    defer { try? socket.close() }
    _ = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8).withUnsafeBytes { try? socket.sendSome($0) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline {
      var descriptor = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
      guard poll(&descriptor, 1, 50) > 0 else { continue }
      let count = (try? socket.read(into: &buffer)) ?? -1
      if count <= 0 { break }
      received += buffer[0..<count]
    }
    let text = String(decoding: received, as: UTF8.self)
    guard text.hasPrefix("HTTP/1.1 200"), let split = text.range(of: "\r\n\r\n") else { return nil }
    return String(text[split.upperBound...])
  } ?? nil
}
