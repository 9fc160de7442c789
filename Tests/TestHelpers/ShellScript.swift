import Foundation
import Plumbing

/// A README's commands run as a bash script in `directory`, the built gpsbridge first on PATH,
/// in a session of its own (setsid may fork, so the shell notes its own process group): every
/// program it starts goes when the script is stopped. Its output and errors are kept in files.
public final class ShellScript: @unchecked Sendable {
  public let output: URL
  public let errors: URL
  private let shell = Process()
  private let group: URL
  private let watch: FileChanges

  public init(_ script: String, in directory: URL) throws {
    let name = UUID().uuidString.prefix(6)
    group = directory.appendingPathComponent("group-\(name)")
    output = directory.appendingPathComponent("script-out-\(name).txt")
    errors = directory.appendingPathComponent("script-err-\(name).txt")
    for file in [output, errors] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
    shell.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
    shell.arguments = ["bash", "-c", "echo $$ > \(group.path)\n" + script]
    shell.currentDirectoryURL = directory
    let path = URL(fileURLWithPath: Gpsbridge.executable).deletingLastPathComponent().path
    shell.environment = ProcessInfo.processInfo.environment.merging([
      "PATH": path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")
    ]) {
      $1
    }
    shell.standardOutput = try FileHandle(forWritingTo: output)
    shell.standardError = try FileHandle(forWritingTo: errors)
    watch = FileChanges([output, errors], process: shell)
    try shell.run()
  }

  /// Waits until `condition` holds, looking again each time the script writes or ends.
  public func until(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    await watch.until(timeout: timeout, condition)
  }

  /// What the script has printed, and said on stderr, so far.
  public var printed: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
  public var said: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

  /// Ends the script and everything it started.
  public func stop() {
    if let leader = (try? String(contentsOf: group, encoding: .utf8)).flatMap({ Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
    {
      kill(-leader, SIGKILL)
    }
    shell.waitForExit()
  }

  deinit { stop() }
}

/// Waits (10 s at most) until something listens on 127.0.0.1:`port`.
public func waitUntilListening(port: Int, within seconds: Double = 10) {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if let socket = try? FileDescriptor.connectTCP(host: "127.0.0.1", port: port) {
      try? socket.close()
      return
    }
    usleep(50_000)
  }
}
