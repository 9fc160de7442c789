import Foundation
import TestHelpers
import Testing

@testable import gpsbridge

/// Every command the README, the DocC articles and `--help` show, run as written, except those that need a
/// receiver or a gpsd: in a scratch directory holding `drive.nmea` (made by the README's own
/// `simulate` example) and `Fixtures/demo.regions.json`, through `sh`, with `gpsbridge` on
/// the PATH. A command passes when it exits 0, or is still printing when its time is up (a
/// real-time replay, a server); with nothing on stderr that says Error, and no `null` out of jq.
@Suite(.serialized, .enabled(if: JQ.isInstalled, "jq is not installed (Debian: jq)"))
struct ExampleCommandTests {
  /// The documentation's `sh` blocks' `gpsbridge` lines and every help page's examples.
  static let commands: [String] = {
    let readme = (try? Documentation.text()) ?? ""
    var lines: [String] = []
    var inShell = false
    for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        inShell = line == "```sh"
        continue
      }
      if inShell, line.hasPrefix("gpsbridge ") || line == "gpsbridge" { lines.append(withoutComment(String(line))) }
    }
    let help = HelpTopic.allCases.flatMap { Help.page($0).examples }
    var seen = Set<String>()
    return (lines + help).filter { seen.insert($0).inserted }
  }()

  static func withoutComment(_ line: String) -> String {
    guard let hash = line.range(of: "  #") else { return line.trimmingCharacters(in: .whitespaces) }
    return String(line[..<hash.lowerBound]).trimmingCharacters(in: .whitespaces)
  }

  /// Whether `command` needs what the box has and this test does not make: a receiver, a gpsd,
  /// the system's chronyd (`time`), a caster on the internet (`ntrip`, which `CorrectionsTests`
  /// runs against str2str), the user's own shell set-up (`completion`, whose loading
  /// `ManPageAndCompletionTests` checks), or the box's own files under /etc/gpsbridge (the
  /// fleet recipe's, which `ReadmeAutomationTests` runs with a file of its own).
  static func needsHardware(_ command: String) -> Bool {
    (command.contains("--device") && !command.contains("--pty")) || command.contains("--gpsd") || command.hasPrefix("gpsbridge record")
      || command.contains("gpsbridge time") || command.contains("gpsbridge completion") || command.contains("gpsbridge ntrip")
      || command.contains("/etc/gpsbridge/")
      // A broker or a webhook receiver of the reader's own: these lines are run against real
      // ones (Mosquitto, a local receiver) in ReadmeAutomationTests.
      || command.contains("--mqtt mqtt://localhost") || command.contains("--webhook http://localhost")
      // The throw-away chronyd's recipe runs as a whole, as root, in ReadmeChronyTests.
      || command.contains("/tmp/chrony-try")
  }

  static let scratch: URL = {
    let directory = scratchDirectory("examples")
    try? FileManager.default.createDirectory(at: directory.appendingPathComponent("Fixtures"), withIntermediateDirectories: true)
    try? FileManager.default.copyItem(
      at: Program.fixtures.appendingPathComponent("demo.regions.json"), to: directory.appendingPathComponent("Fixtures/demo.regions.json"))
    return directory
  }()

  /// Runs `command` in the scratch directory for at most `seconds`; what it printed, whether
  /// it exited by itself with 0, and whether it was still running when its time was up.
  static func run(_ command: String, seconds: Double = 4) async throws -> (
    output: String, error: String, succeeded: Bool, stillRunning: Bool
  ) {
    let process = Process()
    // Process starts the child in a process group of its own: killing the group stops sh and
    // whatever it started in the background.
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    process.currentDirectoryURL = scratch
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = Program.executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    process.environment = environment
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let result = await finish(process, reading: [output, error], timeout: seconds) { process in
      kill(-process.processIdentifier, SIGTERM)
    }
    return (result.output, result.error, result.endedByItself && result.status == 0, !result.endedByItself)
  }

  @Test func theExamplesAreFoundAndMostNeedNoHardware() {
    #expect(Self.commands.count >= 12)
    #expect(Self.commands.filter { !Self.needsHardware($0) }.count >= 8)
  }

  /// Removes what `command` will write with `--output` or `-o` in the scratch directory, as
  /// a newcomer trying it the first time has none (gpsbridge never writes over a file).
  static func clearOutputs(of command: String) {
    let words = command.split(separator: " ")
    for (word, next) in zip(words, words.dropFirst()) where word == "--output" || word == "-o" {
      try? FileManager.default.removeItem(at: scratch.appendingPathComponent(String(next)))
    }
  }

  @Test func everyExampleThatNeedsNoHardwareWorksAsWritten() async throws {
    // The README's own first example makes the capture the others read.
    Self.clearOutputs(of: "gpsbridge simulate --output drive.nmea")
    let make = try await Self.run("gpsbridge simulate --output drive.nmea")
    #expect(make.succeeded, "\(make.error)")
    for command in Self.commands where !Self.needsHardware(command) {
      // A change of settings measures a few epochs of a 1 Hz receiver before and after: it
      // ends by itself, and must, since stopping it midway restores the settings.
      let configures = command.contains("gpsbridge configure")
      Self.clearOutputs(of: command)
      let result = try await Self.run(command, seconds: configures ? 30 : 4)
      #expect(result.succeeded || (result.stillRunning && !configures), "\(command): failed\n\(result.error)")
      #expect(!result.error.contains("Error"), "\(command): \(result.error)")
      if command.contains("| jq") {
        #expect(!result.output.isEmpty && !result.output.contains("null"), "\(command): \(result.output.prefix(200))")
      }
    }
  }
}

enum JQ {
  static let isInstalled = ["/usr/bin/jq", "/usr/local/bin/jq"].contains { FileManager.default.isExecutableFile(atPath: $0) }
}
