import Foundation
import TestHelpers
import Testing

/// Ctrl-C and SIGTERM stop every long-running command whenever they come: just after start,
/// or just after `serve` told systemd it is ready (a signal there was lost 3 times in 6).
@Suite(.serialized, .timeLimit(.minutes(5)))
struct SignalTests {
  /// How long a stop may take before the signal counts as lost: far beyond the second a stop
  /// takes, so a busy machine cannot fail it, and far below forever.
  static let lost: TimeInterval = 15

  /// Starts `arguments` with `environment`, waits for `ready` (or nothing), sends `signal`, and
  /// gives how long the program took to end after it, or `nil` if it never did.
  static func stop(
    _ arguments: [String], signal: Int32, environment: [String: String] = [:], blocked: Bool = false, ready: () -> Void = {}
  ) throws -> TimeInterval? {
    // Started as a service manager or a shell starts it: no signal blocked or ignored (the
    // test runner's threads may block some, and a child inherits that); or, with `blocked`,
    // as a careless parent might, with SIGINT and SIGTERM blocked.
    let mask = blocked ? "[signal.SIGINT, signal.SIGTERM]" : "[]"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments =
      [
        "-c",
        "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, \(mask)); "
          + "[signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGTERM)]; os.execv(sys.argv[1], sys.argv[1:])",
        Gpsbridge.executable,
      ] + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    // (Python takes a moment to exec the program; a signal before then ends Python, which
    // counts as no stop of ours, so the clock starts once the program runs.)
    _ = eventuallyBlocking(timeout: .seconds(10)) {
      !process.isRunning
        || (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.processIdentifier)/exe")) == Gpsbridge.executable
    }
    ready()
    let sent = Date()
    kill(process.processIdentifier, signal)
    _ = eventuallyBlocking(timeout: .milliseconds(Int64(lost * 1000))) { !process.isRunning }
    guard !process.isRunning else {
      kill(process.processIdentifier, SIGKILL)
      process.waitForExit()
      return nil
    }
    return Date().timeIntervalSince(sent)
  }

  /// A parent may start it with SIGINT and SIGTERM blocked (a child inherits the mask of the
  /// thread that spawned it: a pool thread's blocks them). It hears them all the same: its
  /// main thread waits in Dispatch's `sigsuspend` with nothing blocked.
  @Test(arguments: [SIGTERM, SIGINT])
  func aProgramStartedWithTheStopSignalsBlockedStillHearsThem(signal: Int32) async throws {
    let capture = Program.fixtures.appendingPathComponent("ublox-m8-1hz.nmea").path
    let took = try await blocking {
      try Self.stop(
        ["serve", "--replay", capture, "--listen", "127.0.0.1:\(FakeGPSD.freePort())"], signal: signal, blocked: true)
    }
    #expect(took != nil, "the signal was never heard")
  }

  @Test func serveStopsOnSIGTERMJustAfterItSaysReady() async throws {
    let path = PseudoTerminal.temporaryLink("notify-\(Int.random(in: 0..<1_000_000))")
    let listener = try NotifyListener(path: path)
    let capture = Program.fixtures.appendingPathComponent("ublox-m8-1hz.nmea").path
    let times = try await blocking {
      try (0..<100).map { _ in
        try Self.stop(
          ["serve", "--replay", capture, "--listen", "127.0.0.1:\(FakeGPSD.freePort())"], signal: SIGTERM,
          environment: ["NOTIFY_SOCKET": path]
        ) {
          for _ in 0..<1000 where listener.receive(milliseconds: 10) == "READY=1" { return }
        }
      }
    }
    let lost = times.filter { $0 == nil }.count
    #expect(lost == 0, "\(lost) of 100 SIGTERMs after READY=1 were lost")
    let slowest = times.compactMap { $0 }.max() ?? 0
    #expect(slowest < Self.lost, "the slowest stop took \(slowest) s")
  }

  @Test(arguments: [SIGINT, SIGTERM])
  func everyCommandStopsOnASignalThatComesDuringItsStart(signal: Int32) async throws {
    let capture = Program.fixtures.appendingPathComponent("ublox-m8-1hz.nmea").path
    let output = PseudoTerminal.temporaryLink("signalled-\(Int.random(in: 0..<1_000_000)).nmea")
    defer {
      unlink(output)
      unlink(output + ".pty")
    }
    let commands: [[String]] = [
      ["--replay", capture, "--speed", "1"],
      ["serve", "--replay", capture, "--listen", "127.0.0.1:\(FakeGPSD.freePort())"],
      ["simulate", "--pty", output + ".pty"],
      ["record", "--gpsd", "127.0.0.1:\(FakeGPSD.freePort())", "--output", output],
    ]
    let lost = try await blocking {
      try commands.flatMap { arguments in
        // A signal at once, and a few milliseconds into the start.
        try [0, 2000, 10_000, 30_000].compactMap { delay -> String? in
          unlink(output)  // (record never writes over a capture, so each run gets a new one)
          let stopped = try Self.stop(arguments, signal: signal) { usleep(useconds_t(delay)) }
          return stopped == nil ? "\(arguments.first ?? "") after \(delay) µs" : nil
        }
      }
    }
    #expect(lost.isEmpty, "signal \(signal) lost: \(lost)")
  }
}
