import Foundation
import Plumbing
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

/// A program installed here, if it is.
func installed(_ name: String) -> String? {
  ["/usr/bin/", "/usr/sbin/", "/usr/local/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

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
