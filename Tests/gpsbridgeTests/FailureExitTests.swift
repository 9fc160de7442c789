import Foundation
import TestHelpers
import Testing

/// Every failure that cannot go away ends the program at once: exit 1, the real cause on
/// stderr. A closed pipe is not a failure.
@Suite struct FailureExitTests {
  /// Runs the program. A cause that is retried rather than ended would run until the 30 s
  /// limit stops it (status 15, not 1): the exit status says the run ended by itself.
  static func ended(_ arguments: [String]) async throws -> Program.Result {
    try await Program.run(arguments, timeout: 30)
  }

  @Test(arguments: [
    (["--replay", "/nonexistent/drive.nmea"], "Error: Cannot read the capture /nonexistent/drive.nmea: No such file or directory."),
    (["--replay", "/tmp"], "Error: Cannot read the capture /tmp: Is a directory."),
    (["--replay", "/nonexistent/drive.nmea", "--once"], "Error: Cannot read the capture /nonexistent/drive.nmea"),
    (["--device", "/dev/null"], "Error: /dev/null is not a serial device."),
    (["--device", "/dev/null", "--once"], "Error: /dev/null is not a serial device."),
    (["--device", "/tmp"], "Error: /tmp is not a serial device."),
    (["record", "--device", "/tmp", "--output", "/dev/null"], "Error: /tmp is not a serial device."),
    (["--gpsd", "no-such-host.invalid"], "Error: The gpsd host 'no-such-host.invalid' is not known (its name does not resolve)."),
  ])
  func aPermanentCauseEndsTheRunAtOnce(arguments: [String], message: String) async throws {
    let result = try await Self.ended(arguments.first == "record" ? arguments : arguments + ["--json"])
    #expect(result.status == 1)
    #expect(result.error.hasPrefix(message) || (arguments.first == "record" && result.error.contains(message)), "\(result.error)")
  }

  /// Random bytes or nothing at all is no capture: said with its size, exit 1, for `--replay`
  /// and `check` alike.
  @Test(arguments: [0, 3000])
  func aFileWithNoNMEAAndNoGPSDJSONIsNoCapture(bytes: Int) async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("noise-\(bytes)-\(UUID().uuidString).bin").path
    var generator = SystemRandomNumberGenerator()
    // No `$` and no `!` (the two starts of a sentence): a `!` with two printable bytes and a
    // line end after it is a sentence without a checksum, which 3,000 random bytes hold about
    // one time in a hundred (a full run's "0 sentences, 1 skipped"; `check` found it NMEA).
    let noise = (0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) }.map { $0 == 0x24 || $0 == 0x21 ? 0x25 : $0 }
    _ = FileManager.default.createFile(atPath: path, contents: Data(noise))
    defer { unlink(path) }
    let message = "Error: Found no NMEA and no gpsd JSON in the \(bytes) bytes of \(path)."
    for arguments in [["--replay", path, "--json"], ["check", path]] {
      let result = try await Self.ended(arguments)
      #expect(result.status == 1, "\(arguments)")
      #expect(result.error.hasPrefix(message), "\(arguments): \(result.error)")
    }
  }

  /// A "gpsd" that accepts and never speaks: `--once` names it, `record --gpsd` says so.
  @Test func aSilentGPSDIsNamedNotTheSky() async throws {
    let server = try ScriptedServer(lines: [])
    defer { server.stop() }
    let once = try await Self.ended(["--gpsd", "127.0.0.1:\(server.port)", "--once", "--json"])
    #expect(once.status == 1)
    #expect(once.error.contains("The server at 127.0.0.1:\(server.port) accepted the connection and sent nothing"), "\(once.error)")
    #expect(!once.error.contains("clear view of the sky"))
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("silent-\(UUID().uuidString).nmea").path
    defer { unlink(output) }
    let record = try await Self.ended(["record", "--gpsd", "127.0.0.1:\(server.port)", "--output", output, "--duration", "4"])
    #expect(record.status == 1)
    #expect(record.error.contains("accepted the connection and sent nothing"), "\(record.error)")
  }

  @Test func aPlainFileIsNotAReceiver() async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("plain-\(getpid()).txt").path
    _ = FileManager.default.createFile(atPath: path, contents: Data("not a tty".utf8))
    defer { unlink(path) }
    let result = try await Self.ended(["--device", path])
    #expect(result.status == 1 && result.error.hasPrefix("Error: \(path) is not a serial device."))
  }

  /// A directory is no receiver, and never will be: a recording ends at once with the cause
  /// (as the run does, above), instead of retrying it as a device that may yet appear.
  @Test func recordingFromADirectoryEndsAtOnce() async throws {
    let directory = scratchDirectory("not-a-receiver").path
    let result = try await Self.ended(["record", "--device", directory, "--output", directory + "/capture.nmea"])
    #expect(result.status == 1 && result.error.contains("Error: \(directory) is not a serial device."), "\(result.error)")
  }

  @Test func aFullOutputIsAnError() async throws {
    try await blocking {
      let capture = Program.fixtures.appendingPathComponent("sirf-nmea22-1hz.nmea").path
      for format in [["--json"], []] {
        let full = Process()
        full.executableURL = Program.executable
        full.arguments = ["--replay", capture, "--speed", "max"] + format
        full.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        let error = Pipe()
        full.standardError = error
        try full.run()
        full.waitForExit()
        #expect(full.exitStatus == 1)
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message == "Error: cannot write to standard output: No space left on device.\n")
      }
    }
  }

  @Test func recordingFromADeviceThatNeverCameSaysSo() async throws {
    let missing = "/tmp/gpsbridge-no-receiver-\(getpid())"
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(getpid()).nmea").path
    defer { unlink(output) }
    let result = try await Program.run(["record", "--device", missing, "--output", output, "--duration", "1"])
    #expect(result.status == 1)
    #expect(result.error.contains("Error: no data arrived from \(missing) (in 1."), "\(result.error)")
    // A file with nothing but its header is no capture: it is gone, so the retry is not refused.
    #expect(result.error.contains("s); \(output) is removed."), "\(result.error)")
    #expect(!FileManager.default.fileExists(atPath: output))
    let again = try await Program.run(["record", "--device", missing, "--output", output, "--duration", "1"])
    #expect(!again.error.contains("exists already"), "\(again.error)")
  }

  /// Stopped early, `record` says how long it ran of the time asked, not that the whole time
  /// passed without data.
  @Test func recordingStoppedEarlySaysHowLongItRan() async throws {
    let missing = "/tmp/gpsbridge-no-receiver-\(getpid())-early"
    let scratch = scratchDirectory("record-early-\(UUID().uuidString.prefix(8))")
    let output = scratch.appendingPathComponent("early.nmea").path
    let errors = scratch.appendingPathComponent("stderr").path
    _ = FileManager.default.createFile(atPath: errors, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    // Started with no signal blocked, as a shell starts it.
    process.arguments = [
      "-c",
      "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])",
      Program.executable.path, "record", "--device", missing, "--output", output, "--duration", "600",
    ]
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
    let written = FileChanges([URL(fileURLWithPath: errors)])
    try process.run()
    let said = { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }
    #expect(await written.until { said().contains("for 600 s.") }, "\(said())")
    kill(process.processIdentifier, SIGINT)
    let ended = await finish(process, reading: [], timeout: 20)
    #expect(ended.endedByItself && ended.status == 1)
    #expect(said().contains("Error: no data arrived from \(missing) (stopped after "), "\(said())")
    #expect(said().contains(" s of the 600 s asked); \(output) is removed."), "\(said())")
    #expect(!said().contains("in 600 s"), "\(said())")
  }

  /// A capture is never written over: the file named is left as it was.
  @Test(arguments: [["record", "--device", "/dev/null"], ["simulate", "--duration", "5"]])
  func anExistingFileIsNeverWrittenOver(_ command: [String]) async throws {
    let scratch = scratchDirectory("no-overwrite-\(UUID().uuidString.prefix(8))")
    let precious = scratch.appendingPathComponent("precious.nmea")
    try Data("my only capture\n".utf8).write(to: precious)
    let result = try await Program.run(command + ["--output", precious.path])
    #expect(result.status == 1)
    #expect(result.error.contains("Error: cannot write \(precious.path): it exists already"), "\(result.error)")
    #expect(try String(contentsOf: precious, encoding: .utf8) == "my only capture\n")
    let devNull = try await Program.run(["simulate", "--duration", "5", "--output", "/dev/null"])
    #expect(devNull.status == 0, "\(devNull.error)")
  }

  @Test func recordingIntoAPipeThatClosesEndsQuietly() async throws {
    let pty = try PseudoTerminal()
    defer { pty.unplug() }
    let capture = try Data(contentsOf: Program.fixtures.appendingPathComponent("sirf-nmea22-1hz.nmea"))
    let (process, output, error) = try Program.start(["record", "--device", pty.slavePath, "--baud", "9600", "--output", "-"])
    let playing = Task { await pty.play(capture) }
    defer { playing.cancel() }
    // Off the cooperative pool: the pty's playing needs a thread of it to go on, and only its
    // next sentences, written into the closed pipe, end the recording. (Waiting here on the
    // pool starved it under load, and reading the status of a process still running crashed
    // the whole run.)
    try await offThePool {
      _ = output.fileHandleForReading.availableData  // the header; then the reader leaves
      try output.fileHandleForReading.close()
      process.waitForExit()
    }
    #expect(process.exitStatus == 0)
    let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(!message.contains("Error"), "\(message)")
  }
}
