import Foundation
import TestHelpers

/// The built program, started by a test, its standard error kept in a file, stopped (with
/// SIGKILL after a short grace: a child of the test runner may have SIGTERM blocked) when the
/// test is done.
final class Program: @unchecked Sendable {
  let process: Process
  let errorLog: URL

  init(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws {
    errorLog = directory.appendingPathComponent("stderr-\(UUID().uuidString.prefix(8)).txt")
    _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
    process = Process()
    process.executableURL = URL(fileURLWithPath: Gpsbridge.executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = try FileHandle(forWritingTo: errorLog)
    try process.run()
  }

  /// What it has said on standard error so far.
  var said: String { (try? String(contentsOf: errorLog, encoding: .utf8)) ?? "" }

  func stop() {
    guard process.isRunning else { return }
    process.interrupt()
    let deadline = Date().addingTimeInterval(2)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }

  deinit { stop() }
}

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

/// A program installed here, if it is.
func installed(_ name: String) -> String? {
  ["/usr/bin/", "/usr/sbin/", "/usr/local/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// What an HTTP/1.0 GET of `path` on 127.0.0.1:`port` answers with 200 (`nil` otherwise, or
/// when nothing listens yet). HTTP/1.0, so that no server answers in chunks.
func fetch(_ path: String, port: Int) async -> String? {
  guard let response = try? await HTTPExchange.send("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", port: port), response.status == 200
  else { return nil }
  return response.body
}
