import Foundation

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
  /// standard input, and waits for it to exit (killing it after `timeout`).
  static func run(_ arguments: [String], input: Data? = nil, asUser uid: Int? = nil, timeout: TimeInterval = 30) throws -> Result {
    let process = Process()
    if let uid {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
      process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", executable.path] + arguments
    } else {
      process.executableURL = executable
      process.arguments = arguments
    }
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    let inputPipe = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
    try process.run()
    if let input {
      inputPipe.fileHandleForWriting.write(input)
      try inputPipe.fileHandleForWriting.close()
    }
    return collect(process, output: output, error: error, timeout: timeout) { $0.terminate() }.result
  }

  /// Reads a started process's stdout and stderr to their end, stopping it with `stop` after
  /// `timeout`; what it printed and its status, and whether it ended in time by itself.
  static func collect(
    _ process: Process, output: Pipe, error: Pipe, timeout: TimeInterval, stop: (Process) -> Void
  ) -> (result: Result, finished: Bool) {
    let outputData = Locked(Data()), errorData = Locked(Data())
    let group = DispatchGroup()
    for (pipe, sink) in [(output, outputData), (error, errorData)] {
      group.enter()
      DispatchQueue.global().async {
        sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
        group.leave()
      }
    }
    let finished = group.wait(timeout: .now() + timeout) == .success
    if !finished {
      stop(process)
      group.wait()
    }
    process.waitUntilExit()
    let result = Result(
      status: process.terminationStatus, output: String(decoding: outputData.get(), as: UTF8.self),
      error: String(decoding: errorData.get(), as: UTF8.self))
    return (result, finished)
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
