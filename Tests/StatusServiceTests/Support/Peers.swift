import Foundation
import TestHelpers

/// A real peer the test runs (Prometheus, Chromium), its output dropped, killed at the end.
struct Peer {
  let process = Process()

  init(_ path: String, _ arguments: [String]) throws {
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
  }

  /// SIGKILL, and waits until it has gone: a child of the test runner may have SIGTERM blocked.
  func kill() {
    Glibc.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
}

/// What an HTTP/1.0 GET of `path` on 127.0.0.1:`port` answers with 200 (`nil` otherwise, or
/// when nothing listens yet). HTTP/1.0, so that no server answers in chunks.
func fetch(_ path: String, port: Int) async -> String? {
  guard let response = try? await HTTPExchange.send("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", port: port), response.status == 200
  else { return nil }
  return response.body
}
