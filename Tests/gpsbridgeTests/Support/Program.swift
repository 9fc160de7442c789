import Foundation
import TestHelpers

/// Runs the built `gpsbridge` and captures what it prints.
struct Program {
  struct Result {
    var status: Int32
    var output: String
    var error: String
  }

  /// The binary beside the test bundle in the build folder.
  static let executable: URL = {
    let me = URL(
      fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    var directory = me.deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("gpsbridge").path), directory.path != "/" {
      directory = directory.deletingLastPathComponent()
    }
    return directory.appendingPathComponent("gpsbridge")
  }()

  static let fixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

  /// Runs `gpsbridge arguments`, optionally as another user via setpriv, with `input` on
  /// standard input, and waits for it to exit (killing it after `timeout`), off the
  /// cooperative pool.
  static func run(_ arguments: [String], input: Data? = nil, asUser uid: Int? = nil, timeout: TimeInterval = 30) async throws -> Result {
    let ran =
      if let uid {
        try await runProgram(
          URL(fileURLWithPath: "/usr/bin/setpriv"), ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", executable.path] + arguments,
          input: input, timeout: timeout)
      } else {
        try await runProgram(executable, arguments, input: input, timeout: timeout)
      }
    return Result(status: ran.status, output: ran.output, error: ran.error)
  }

  /// Starts `gpsbridge arguments` and returns at once, for tests that act while it runs.
  static func start(_ arguments: [String]) throws -> (process: Process, output: Pipe, error: Pipe) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    return (process, output, error)
  }
}

final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value
  init(_ value: Value) { self.value = value }
  func set(_ new: Value) { lock.withLock { value = new } }
  func get() -> Value { lock.withLock { value } }
}
