import Foundation

/// The built program, started by a test, its standard error (and, if asked, its output) kept
/// in a file, stopped (with SIGKILL after a short grace: a child of the test runner may have
/// SIGTERM blocked) when the test is done.
public final class RunningProgram: @unchecked Sendable {
  public let process: Process
  public let errorLog: URL
  public let outputLog: URL?
  private let watch: FileChanges

  /// Starts `program` (the built gpsbridge unless another is named) with `arguments`.
  public init(
    _ arguments: [String], in directory: URL, environment: [String: String] = [:], keepsOutput: Bool = false,
    program: String = Gpsbridge.executable
  ) throws {
    let name = UUID().uuidString.prefix(8)
    errorLog = directory.appendingPathComponent("stderr-\(name).txt")
    _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
    outputLog = keepsOutput ? directory.appendingPathComponent("stdout-\(name).txt") : nil
    if let outputLog { _ = FileManager.default.createFile(atPath: outputLog.path, contents: nil) }
    process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = try outputLog.map { try FileHandle(forWritingTo: $0) } ?? FileHandle.nullDevice
    process.standardError = try FileHandle(forWritingTo: errorLog)
    watch = FileChanges([errorLog] + (outputLog.map { [$0] } ?? []), process: process)
    try process.runWithSignalsUnblocked()
  }

  /// Waits until `condition` holds, looking again each time the program writes or ends.
  public func until(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    await watch.until(timeout: timeout, condition)
  }

  /// Waits until `gpsbridge serve` says it serves: its gpsd socket and its status page listen
  /// by then, so a client connects at the first try.
  public func serving(within timeout: Duration = .seconds(30)) async -> Bool {
    await until(timeout: timeout) { said.contains(" to gpsd clients on ") || !process.isRunning } && process.isRunning
  }

  /// Waits until the program has ended by itself; `false` if it still runs after `timeout`.
  public func ended(within timeout: Duration = .seconds(30)) async -> Bool {
    await watch.until(timeout: timeout) { !process.isRunning }
  }

  /// What it has said on standard error so far.
  public var said: String { (try? String(contentsOf: errorLog, encoding: .utf8)) ?? "" }

  /// Its exit status, `nil` while it runs.
  public var exitStatus: Int32? { process.exitStatus }

  /// What it has printed so far (with `keepsOutput`).
  public var printed: String { outputLog.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? "" }

  public func stop() {
    guard process.isRunning else { return }
    process.interrupt()
    let deadline = Date().addingTimeInterval(2)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    // Bounded, and never Foundation's run loop (see ``Process/waitForExit(bound:)``): a test
    // stops its programs from the cooperative pool, which two spinning waits would stall.
    process.waitForExit(bound: .seconds(10))
  }

  deinit { stop() }
}

/// A program installed here, if it is.
public func installed(_ name: String) -> String? {
  ["/usr/bin/", "/usr/sbin/", "/usr/local/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
}
