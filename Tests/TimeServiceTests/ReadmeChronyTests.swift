import Foundation
import TestHelpers
import Testing

/// The README's throw-away chronyd, run as written (as root, without sudo, in a scratch
/// directory instead of /tmp/chrony-try): chrony reaches the GPS source gpsbridge feeds, and the
/// system's chrony and clock are not touched.
@Suite(
  .serialized, .timeLimit(.minutes(2)), .enabled(if: Chronyd.isAvailable, "chrony is not installed, or this is not root (Debian: chrony)"))
struct ReadmeChronyTests {
  @Test func theThrowAwayChronydTakesTheReceiversTime() async throws {
    let readme = try Documentation.text()
    let start = try #require(readme.range(of: "mkdir -m 700 -p /tmp/chrony-try"))
    let end = try #require(readme[start.lowerBound...].range(of: "\n```"))
    let directory = scratchDirectory("chrony-try-\(UUID().uuidString.prefix(8))").path
    // (chronyd wants its command socket's directory to be root's alone: made anew, 0700.)
    try? FileManager.default.removeItem(atPath: directory)
    let script = String(readme[start.lowerBound..<end.lowerBound]).replacingOccurrences(of: "/tmp/chrony-try", with: directory)
      .replacingOccurrences(of: "sudo ", with: "").replacingOccurrences(of: "127.0.0.1:2952", with: "127.0.0.1:\(FakeGPSD.freePort())")
    let path =
      URL(fileURLWithPath: Gpsbridge.executable).deletingLastPathComponent().path + ":"
      + (ProcessInfo.processInfo.environment["PATH"] ?? "")
    // As a shell a user types in starts it: no signal blocked, so the recipe's kills stop
    // what it started.
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/bash")
    shell.arguments = ["-c", "export PATH='\(path)'; " + script]
    let output = Pipe(), error = Pipe()
    shell.standardOutput = output
    shell.standardError = error
    try shell.runWithSignalsUnblocked()
    let result = await finish(shell, reading: [output, error], timeout: 90)
    defer {
      // Whatever the recipe left (it should leave nothing): chronyd by its pidfile.
      if let pid = (try? String(contentsOfFile: directory + "/chronyd.pid", encoding: .utf8)).flatMap({
        Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
      }) {
        kill(pid, SIGKILL)
      }
    }
    let serveLog = (try? String(contentsOfFile: directory + "/serve.log", encoding: .utf8)) ?? ""
    // chronyc's sources: the GPS line, its reach (the fifth column) not 0.
    let line = try #require(
      result.output.split(separator: "\n").first { $0.contains(" GPS ") }, "\(result.output) \(result.error) \(serveLog)")
    let columns = line.split(separator: " ")
    #expect(columns.count > 4 && columns[4] != "0", "\(line)")
    #expect(serveLog.contains("chrony takes the samples"), "\(serveLog)")
  }
}
