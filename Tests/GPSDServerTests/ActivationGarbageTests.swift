import Foundation
import TestHelpers
import Testing

/// What systemd hands over is checked: descriptors that are no listening socket end `serve`
/// with the cause (it said "serving" and listened on nothing, or spun on a file), and a
/// nonsensical watchdog interval is pinged at a sane pace rather than in a spin.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ActivationGarbageTests {
  /// `serve` started by a shell that hands it `redirections` as its descriptors from 3 and says
  /// `count` of them were handed over, as systemd would (`LISTEN_PID` is the shell's, which
  /// `exec` keeps).
  static func serve(handingOver count: Int, _ redirections: String) async throws -> ProgramOutput {
    let command =
      "LISTEN_PID=$$ LISTEN_FDS=\(count) exec '\(Gpsbridge.executable)' serve --replay '\(SystemdTests.capture)' \(redirections)"
    return try await runProgram(URL(fileURLWithPath: "/bin/sh"), ["-c", command], timeout: 20)
  }

  @Test(arguments: [
    (1, "3<'\(SystemdTests.capture)'", "which is a regular file"),
    (1, "3</dev/null", "which is a device"),
    (1, "3<\(NSTemporaryDirectory())", "which is a directory"),
    (2, "3</dev/null", "descriptor 3 (LISTEN_FDS), which is a device"),
  ])
  func descriptorsThatAreNoListeningSocketEndServeWithTheCause(count: Int, redirections: String, cause: String) async throws {
    let result = try await Self.serve(handingOver: count, redirections)
    #expect(result.endedByItself && result.status == 1, "\(result.status): \(result.error)")
    #expect(result.error.contains(cause), "\(result.error)")
    #expect(!result.error.contains("serving"), "\(result.error)")
  }

  /// (The program's own start may open something of its own at the number left free: it is
  /// named for what it is, never served.)
  @Test func aClosedDescriptorHandedOverIsNamed() async throws {
    let result = try await Self.serve(handingOver: 1, "3<&-")
    #expect(result.status == 1 && result.error.contains("systemd handed over descriptor 3 (LISTEN_FDS), which is "), "\(result.error)")
  }

  @Test func aMicrosecondWatchdogIsPingedAtASanePace() async throws {
    let path = SystemdTests.socketPath("watchdog")
    let listener = try NotifyListener(path: path)
    let server = Process()
    server.executableURL = URL(fileURLWithPath: Gpsbridge.executable)
    server.arguments = ["serve", "--replay", SystemdTests.capture, "--listen", "127.0.0.1:\(FakeGPSD.freePort())"]
    server.environment = ProcessInfo.processInfo.environment.merging(["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1"]) { $1 }
    server.standardError = FileHandle.nullDevice
    try server.run()
    // Two seconds of pings: at most one each 50 ms (a busy machine only makes fewer).
    let pings = try await blocking {
      var pings = 0
      let end = Date().addingTimeInterval(2)
      while Date() < end { if listener.receive(milliseconds: 20) == "WATCHDOG=1" { pings += 1 } }
      return pings
    }
    // Stopped while nobody reads its notifications any more (their queue fills): it stops all
    // the same, within the bound (waited for on a thread of its own).
    server.terminate()
    let stopped = try await blocking {
      eventuallyBlocking(timeout: .seconds(15)) { !server.isRunning }
    }
    if !stopped { kill(server.processIdentifier, SIGKILL) }
    #expect(pings >= 1 && pings <= 45, "\(pings) pings in 2 s")
    #expect(stopped, "serve did not stop on SIGTERM within 15 s")
  }
}
