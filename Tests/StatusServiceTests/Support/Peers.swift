import Foundation
import TestHelpers
import Testing

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
    process.waitForExit()
  }
}

/// What an HTTP/1.0 GET of `path` on 127.0.0.1:`port` answers with 200 (`nil` otherwise, or
/// when nothing listens yet). HTTP/1.0, so that no server answers in chunks.
func fetch(_ path: String, port: Int) async -> String? {
  guard let response = try? await HTTPExchange.send("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", port: port), response.status == 200
  else { return nil }
  return response.body
}

/// What headless Chromium drew of the status page at `url` (`Browser/read-page.py`): `first`
/// after two live events, `second` after two more; a screenshot saved at `screenshot`.
/// Chromium's profile lives in `directory`.
func readStatusPage(_ url: String, in directory: URL, screenshot: String) async throws -> [String: Any] {
  let profile = directory.appendingPathComponent("profile")
  let chromium = try Peer(
    installed("chromium")!,
    [
      "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-port=0", "--user-data-dir=\(profile.path)",
      "about:blank",
    ])
  defer { chromium.kill() }
  let portFile = profile.appendingPathComponent("DevToolsActivePort").path
  var devtools: Int?
  #expect(
    await eventually {
      devtools = (try? String(contentsOfFile: portFile, encoding: .utf8))?.split(separator: "\n").first.flatMap { Int($0) }
      return devtools != nil
    })
  let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Browser/read-page.py").path
  let read = try await runProgram(URL(fileURLWithPath: "/usr/bin/python3"), [script, String(devtools ?? 0), url, screenshot], timeout: 60)
  #expect(read.status == 0, "\(read.output) \(read.error)")
  return try #require(try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [String: Any], "\(read.output)")
}
