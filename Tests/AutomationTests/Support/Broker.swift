import Foundation
import Plumbing
import TestHelpers

/// A real Mosquitto on a loopback port, with a configuration of its own (persistent, so a
/// restart keeps a subscriber's session and what is queued for it; a password file when asked),
/// its log (each subscription too) in a file.
final class Broker: @unchecked Sendable {
  static let mosquitto = installed("mosquitto")
  static let subscriber = installed("mosquitto_sub")
  static let passwords = installed("mosquitto_passwd")
  let port: Int
  let directory: URL
  let log: URL
  private var process: Process?

  init(directory: URL, port: Int = FakeGPSD.freePort(), user: (name: String, password: String)? = nil) throws {
    self.port = port
    self.directory = directory
    log = directory.appendingPathComponent("mosquitto-\(port).log")
    // Logged on standard error (unbuffered), into a file this process opens (run as root,
    // Mosquitto drops to its own user before it opens a log file of its own).
    var configuration = """
      listener \(port) 127.0.0.1
      persistence true
      persistence_location \(directory.path)/
      log_dest stderr
      log_type error
      log_type warning
      log_type notice
      log_type information
      log_type subscribe

      """
    if let user {
      let file = directory.appendingPathComponent("passwords").path
      let made = Process()
      made.executableURL = URL(fileURLWithPath: Self.passwords!)
      made.arguments = ["-b", "-c", file, user.name, user.password]
      try made.run()
      made.waitForExit()
      configuration += "allow_anonymous false\npassword_file \(file)\n"
    } else {
      configuration += "allow_anonymous true\n"
    }
    try Data(configuration.utf8).write(to: directory.appendingPathComponent("mosquitto.conf"))
  }

  func start() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.mosquitto!)
    process.arguments = ["-c", directory.appendingPathComponent("mosquitto.conf").path]
    if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
    let output = try FileHandle(forWritingTo: log)
    try output.seekToEnd()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = output
    try process.runWithSignalsUnblocked()
    self.process = process
    // Listening before anyone connects.
    waitUntilListening(port: port)
  }

  /// A shell command that returns once the broker has taken a subscription to `topic`: it
  /// logs each one as it takes it, before it handles any other client's message, so what is
  /// published next reaches that subscriber.
  func untilSubscribed(to topic: String) -> String {
    "grep -q -m1 -F ' \(topic)' <(tail -n +1 -f '\(log.path)')"
  }

  /// Stops the broker as a service manager would (SIGTERM: it saves its sessions), SIGKILL
  /// after a grace.
  func stop() {
    guard let process, process.isRunning else { return }
    process.terminate()
    process.waitForExit(bound: .seconds(5))
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitForExit()
    self.process = nil
  }

  deinit { stop() }
}

/// `mosquitto_sub` on every topic (`#`), a persistent session at QoS 1, each message kept as
/// "RETAIN TOPIC PAYLOAD" lines.
final class Subscriber: @unchecked Sendable {
  let process = Process()
  let log: URL
  private let watch: FileChanges

  init(broker: Broker, topic: String = "#", user: (name: String, password: String)? = nil) throws {
    log = broker.directory.appendingPathComponent("sub-\(UUID().uuidString.prefix(6)).txt")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    process.executableURL = URL(fileURLWithPath: Broker.subscriber!)
    var arguments = [
      "-h", "127.0.0.1", "-p", "\(broker.port)", "-t", topic, "-q", "1", "-c", "-i", "test-\(UUID().uuidString.prefix(8))", "-F",
      "%r %t %p",
    ]
    if let user { arguments += ["-u", user.name, "-P", user.password] }
    process.arguments = arguments
    process.standardOutput = try FileHandle(forWritingTo: log)
    process.standardError = FileHandle.nullDevice
    watch = FileChanges([log], process: process)
    try process.run()
  }

  /// Waits until `condition` holds, looking again at each message received.
  func until(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    await watch.until(timeout: timeout, condition)
  }

  struct Received: Equatable {
    var retained: Bool
    var topic: String
    var payload: String
  }

  var received: [Received] {
    let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
      guard parts.count == 3 else { return nil }
      return Received(retained: parts[0] == "1", topic: String(parts[1]), payload: String(parts[2]))
    }
  }

  func payloads(on topic: String) -> [String] { received.filter { $0.topic == topic }.map(\.payload) }

  func stop() {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitForExit()
  }

  deinit { stop() }
}
