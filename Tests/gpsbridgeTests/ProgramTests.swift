import Foundation
import GPSLocation
import NMEASimulation
import Plumbing
import TestHelpers
import Testing

@testable import gpsbridge

/// The built program, run as a user would run it.
///
/// The golden NDJSON files in Fixtures/cli are the output contract; to re-record them after
/// an intended change: `GPSBRIDGE_RECORD=1 swift test --filter ProgramTests`.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ProgramTests {
  static let goldenCaptures = ["ublox-m8-1hz", "sirf-nmea22-1hz", "quectel-nmea411-10hz", "gga-only-5hz", "marine-0.5hz"]

  @Test func helpIsTheWholeHelpText() async throws {
    let result = try await Program.run(["--help"])
    #expect(result.status == 0 && result.output == Help.text(.main) + "\n" && result.error.isEmpty)
    for topic in ["devices", "record", "check"] {
      let sub = try await Program.run(["help", topic])
      #expect(sub.status == 0 && sub.output.contains("USAGE: gpsbridge \(topic)"), "\(topic)")
    }
  }

  @Test func usageErrorsExit64WithTheUsageAndAPointerToHelp() async throws {
    let result = try await Program.run(["--speed", "fast"])
    #expect(result.status == 64 && result.output.isEmpty)
    #expect(
      result.error == """
        Error: --speed takes a positive number (2 is twice real time) or 'max'; got 'fast'.
        Usage: \(Help.usage(.main))
          See 'gpsbridge --help' for more information.

        """)
  }

  @Test(arguments: goldenCaptures)
  func replayPrintsTheGoldenNDJSON(_ name: String) async throws {
    let capture = Program.fixtures.appendingPathComponent("\(name).nmea").path
    let result = try await Program.run(["--replay", capture, "--speed", "max", "--json", "--heading"])
    #expect(result.status == 0)
    // The end-of-capture message names the file; the golden file has it relative.
    let output = result.output.replacingOccurrences(of: Program.fixtures.path + "/", with: "Fixtures/")
    let golden = Program.fixtures.appendingPathComponent("cli/\(name).ndjson")
    if ProcessInfo.processInfo.environment["GPSBRIDGE_RECORD"] != nil {
      try output.write(to: golden, atomically: true, encoding: .utf8)
    }
    let expected = try String(contentsOf: golden, encoding: .utf8)
    let lines = output.split(separator: "\n"), wanted = expected.split(separator: "\n")
    #expect(lines.count == wanted.count)
    for (index, (line, want)) in zip(lines, wanted).enumerated() where line != want {
      Issue.record("line \(index + 1):\n  got  \(line)\n  want \(want)")
      break
    }
    // Every line is one JSON object with an event.
    for line in lines.prefix(50) {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      #expect(object?["event"] is String)
    }
  }

  @Test func onceprintsOneLocationAndExits() async throws {
    let capture = Program.fixtures.appendingPathComponent("ublox-m8-1hz.nmea").path
    let result = try await Program.run(["--replay", capture, "--speed", "max", "--once", "--json"])
    #expect(result.status == 0)
    let lines = result.output.split(separator: "\n")
    #expect(lines.count == 1 && lines.first?.hasPrefix(#"{"event":"didUpdateLocations""#) == true)
  }

  /// A gpsd log (`gpspipe -w > log`) replays like a capture: the locations of its TPVs.
  @Test func aGPSDLogReplaysLikeACapture() async throws {
    let log = Program.fixtures.appendingPathComponent("gpsd/gpsd-3.22-ublox-m8-1hz.jsonl").path
    let result = try await Program.run(["--replay", log, "--speed", "max", "--json"])
    #expect(result.status == 0, "\(result.error)")
    let lines = result.output.split(separator: "\n")
    let locations = lines.filter { $0.hasPrefix(#"{"event":"didUpdateLocations""#) }
    #expect(locations.count == 25)
    #expect(locations.first?.contains(#""timestamp":"2024-05-01T10:15:19.000Z","latitude":47.3769"#) == true)
    #expect(lines.last?.contains("25 epochs (25 with a position) from 60 reports") == true)
  }

  @Test func onceWithoutAFixFailsSayingSo() async throws {
    let noFix = "$GPGGA,120000,,,,,0,00,,,M,,M,,*7B\r\n$GPGGA,120001,,,,,0,00,,,M,,M,,*7A\r\n"
    let result = try await Program.run(["--replay", "-", "--speed", "max", "--once"], input: Data(noFix.utf8))
    #expect(result.status == 1)
    #expect(result.error.contains("Error: The source ended before a fix arrived."))
  }

  @Test func significantChangesPrintALocationOnlyEveryFiveHundredMetres() async throws {
    let drive = FileManager.default.temporaryDirectory.appendingPathComponent("long-drive-\(getpid()).nmea").path
    defer { unlink(drive) }
    #expect(try await Program.run(["simulate", "--duration", "600", "--output", drive]).status == 0)
    let every = try await Program.run(["--replay", drive, "--speed", "max", "--json"])
    let significant = try await Program.run(["--replay", drive, "--speed", "max", "--json", "--significant-changes"])
    func coordinates(_ output: String) throws -> [(Double, Double)] {
      try output.split(separator: "\n").compactMap { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        guard let location = (object?["locations"] as? [[String: Any]])?.first else { return nil }
        return (location["latitude"] as! Double, location["longitude"] as! Double)
      }
    }
    let all = try coordinates(every.output)
    let sparse = try coordinates(significant.output)
    #expect(all.count > 500 && sparse.count >= 2 && sparse.count < all.count / 20, "\(sparse.count) of \(all.count)")
    #expect(sparse.first! == all.first!)
    for (a, b) in zip(sparse, sparse.dropFirst()) {
      let metres = LocationCoordinate2D(latitude: a.0, longitude: a.1).distance(to: LocationCoordinate2D(latitude: b.0, longitude: b.1))
      #expect(metres >= 500, "\(metres) m")
    }
  }

  @Test func checkSummarizesACapture() async throws {
    let capture = Program.fixtures.appendingPathComponent("sirf-nmea22-1hz.nmea").path
    let result = try await Program.run(["check", capture])
    #expect(result.status == 0)
    for line in [
      "300 sentences", "  GPGSV                   120", "  bad checksum              0", "  epochs                   60",
      "  with a position          56", "  from              2023-12-31T23:59:30.000Z", "  rate              1.00 Hz",
    ] {
      #expect(result.output.contains(line), "\(line)")
    }
    let json = try await Program.run(["check", capture, "--json"])
    let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
    #expect(object?["fixes"] as? Int == 60)
  }

  @Test func checkSummarizesAGPSDLogWithItsRejects() async throws {
    let log = try String(contentsOf: Program.fixtures.appendingPathComponent("gpsd/gpsd-3.22-ublox-m8-1hz.jsonl"), encoding: .utf8)
    let damaged = log + "garbage\n" + #"{"class":"TPV","mode":3,"time":"2024-05-01T10:30:00.000Z","lat":47.0,"lon":8.0,"alt":1e300}"# + "\n"
    let result = try await Program.run(["check", "-", "--json"], input: Data(damaged.utf8))
    #expect(result.status == 0)
    let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
    #expect(object?["format"] as? String == "gpsd")
    // The log holds 28 TPVs, 25 of them with a time and a position (grep can count them).
    #expect((object?["reports"] as? [String: Int])?["TPV"] == 28)
    #expect(object?["rejected"] as? [String: Int] == ["malformed": 1, "outOfRange": 1, "overlong": 0])
    #expect(object?["fixesWithPosition"] as? Int == 25)
  }

  @Test func checkOfAMissingFileExits1() async throws {
    let result = try await Program.run(["check", "/nonexistent.nmea"])
    #expect(result.status == 1 && result.error.hasPrefix("Error: cannot read /nonexistent.nmea"))
  }

  @Test func recordFromAPtyReplaysToTheSameActions() async throws {
    let pty = try PseudoTerminal()
    defer { pty.unplug() }
    let capture = try Data(contentsOf: Program.fixtures.appendingPathComponent("sirf-nmea22-1hz.nmea"))
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("recorded-\(getpid()).nmea").path
    defer { unlink(output) }
    // The receiver speaks once the recorder holds the port and has set its speed (nothing is
    // flushed after that: the port keeps what arrives). On a thread of its own: this test and
    // others block the runner's few threads meanwhile.
    let wrote = Locked(false)
    let writer = Thread {
      guard pty.waitUntilHeldBlocking() else { return }
      _ = eventuallyBlocking { pty.inputSpeed == speed_t(B9600) }
      pty.write(capture)
      wrote.set(true)
    }
    writer.start()
    let result = try await Program.run(["record", "--device", pty.slavePath, "--baud", "9600", "--output", output, "--duration", "2.5"])
    #expect(wrote.get())
    #expect(result.status == 0)
    #expect(result.error.contains("recorded \(capture.count) bytes"), "\(result.error)")
    let recorded = try String(contentsOf: URL(fileURLWithPath: output), encoding: .utf8)
    #expect(recorded.hasPrefix("# Date: ") && recorded.contains("# Device: \(pty.slavePath)"))
    let original = try await Program.run([
      "--replay", Program.fixtures.appendingPathComponent("sirf-nmea22-1hz.nmea").path, "--speed", "max", "--json",
    ])
    let replayed = try await Program.run(["--replay", output, "--speed", "max", "--json"])
    // All but the last line (the end-of-capture message names the file).
    #expect(replayed.output.split(separator: "\n").dropLast() == original.output.split(separator: "\n").dropLast())
  }

  @Test func devicesDescribesAPtyBehindALink() async throws {
    let pty = try PseudoTerminal()
    defer { pty.unplug() }
    let link = FileManager.default.temporaryDirectory.appendingPathComponent("gps-devices-\(getpid())").path
    unlink(link)
    symlink(pty.slavePath, link)
    defer { unlink(link) }
    let result = try await Program.run(["devices", link])
    #expect(result.status == 0)
    let row = result.output.split(separator: "\n").first { $0.hasPrefix(link) }
    #expect(row?.contains(String(pty.slavePath.dropFirst(5))) == true, "kernel name")
    #expect(row?.hasSuffix("yes") == true, "accessible")
    #expect(result.output.hasPrefix("PATH"))
  }

  @Test func devicesAsJSONIsAlwaysOneArray() async throws {
    let pty = try PseudoTerminal()
    defer { pty.unplug() }
    let listed = try await Program.run(["devices", pty.slavePath, "--json"])
    #expect(listed.status == 0 && listed.output.hasPrefix("[{") && listed.output.hasSuffix("}]\n"), "\(listed.output)")
    let array = try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]]
    #expect(array?.contains { $0["path"] as? String == pty.slavePath } == true)
    if DeviceDiscoveryHasNoReceiver.value {
      #expect(try await Program.run(["devices", "--json"]).output == "[]\n")
    }
  }

  /// Permission denied says the cure that works for the node: joining the group that may
  /// open it, or, where only root may (no group helps), gpsbridge's udev rules.
  @Test(.enabled(if: getuid() == 0, "switching to the user 'nobody' needs root (CI runs as root)"))
  func permissionDeniedNamesTheFix() async throws {
    try await blocking {
      // CI runs as root, which may open anything: run the program as 'nobody' instead.
      let pty = try PseudoTerminal()
      defer { pty.unplug() }
      let binary = FileManager.default.temporaryDirectory.appendingPathComponent("gpsbridge-\(getpid())")
      try? FileManager.default.removeItem(at: binary)
      // Copied by cp, not by this process: a program another test starts meanwhile would
      // inherit a descriptor open for writing, and the copy could not be run while it lives
      // ("Text file busy").
      let copy = Process()
      copy.executableURL = URL(fileURLWithPath: "/bin/cp")
      copy.arguments = [Program.executable.path, binary.path]
      try copy.run()
      copy.waitForExit()
      try #require(copy.exitStatus == 0)
      chmod(binary.path, 0o755)
      defer { try? FileManager.default.removeItem(at: binary) }
      func said() throws -> (status: Int32?, text: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path, "--device", pty.slavePath, "--once"]
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitForExit()
        return (process.exitStatus, text)
      }
      // Only root may open it (a pty's node is root's, its group may only write).
      chmod(pty.slavePath, 0o600)
      let rootOnly = try said()
      #expect(rootOnly.status == 1)
      #expect(rootOnly.text.contains("Permission denied opening \(pty.slavePath): only root may open it."), "\(rootOnly.text)")
      #expect(rootOnly.text.contains("udev rules") && !rootOnly.text.contains("usermod"), "\(rootOnly.text)")
      // The group dialout may open it, as the udev rules make a receiver's node.
      guard let dialout = getgrnam("dialout") else { return }
      chown(pty.slavePath, 0, dialout.pointee.gr_gid)
      chmod(pty.slavePath, 0o660)
      let group = try said()
      #expect(group.status == 1)
      #expect(
        group.text.contains(
          "Permission denied opening \(pty.slavePath): it belongs to the group 'dialout'. Add yourself to it (sudo usermod -aG dialout $USER"
        ),
        "\(group.text)")
    }
  }

  @Test func sigtermStopsCleanlyWithCompleteLines() async throws {
    try await blocking {
      let (process, output, _) = try Program.start([
        "--replay", Program.fixtures.appendingPathComponent("quectel-nmea411-10hz.nmea").path, "--json",
      ])
      // Stopped mid-replay, once it has written a few lines, however long a busy machine took.
      let first = Self.readOutput(output.fileHandleForReading, of: process) { $0.filter { $0 == 0x0A }.count >= 6 }
      process.terminate()
      let data = first + output.fileHandleForReading.readDataToEndOfFile()
      process.waitForExit()
      #expect(process.exitStatus == 0)
      let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
      #expect(lines.count > 5 && lines.last == "")
      for line in lines.dropLast() {
        #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
      }
    }
  }

  @Test func aLineIsWrittenAsSoonAsNoFurtherLineIsReady() async throws {
    try await blocking {
      // A real-time replay lasts ten seconds; its first lines must reach the pipe at once,
      // not when a buffer fills or the program ends.
      let (process, output, _) = try Program.start([
        "--replay", Program.fixtures.appendingPathComponent("quectel-nmea411-10hz.nmea").path, "--json",
      ])
      defer {
        process.terminate()
        process.waitForExit()
      }
      let arrived = DispatchSemaphore(value: 0)
      nonisolated(unsafe) var first = Data()
      Thread.detachNewThread {
        first = output.fileHandleForReading.availableData
        arrived.signal()
      }
      #expect(arrived.wait(timeout: .now() + 10) == .success)
      #expect(process.isRunning)
      #expect(first.last == 0x0A)
      #expect(String(decoding: first, as: UTF8.self).hasPrefix(#"{"event":"didUpdateLocations""#))
    }
  }

  @Test func aClosedStdoutEndsTheProgramQuietly() async throws {
    try await blocking {
      let (process, output, error) = try Program.start([
        "--replay", Program.fixtures.appendingPathComponent("quectel-nmea411-10hz.nmea").path, "--speed", "5", "--json",
      ])
      // Like `| head -1`: read a line, then close the pipe.
      _ = output.fileHandleForReading.availableData
      try output.fileHandleForReading.close()
      process.waitForExit()
      #expect(process.exitStatus == 0)
      #expect(error.fileHandleForReading.readDataToEndOfFile().isEmpty)
    }
  }

  @Test(.enabled(if: FakeGPSD.isAvailable, "gpsfake is not installed (Debian: gpsd gpsd-clients)"))
  func gpsdEndToEndGivesTheCapturesLocations() async throws {
    let capture = Program.fixtures.appendingPathComponent("ublox-m8-1hz.nmea").path
    let gpsd = try await FakeGPSD.started(capture: capture)
    defer { gpsd.stop() }
    let result = try await Program.run(["--gpsd", "127.0.0.1:\(gpsd.port)", "--once", "--json"], timeout: 20)
    #expect(result.status == 0, "\(result.error)")
    // One line, the location: `… --once --json | jq .locations[0].latitude` prints a number.
    let lines = result.output.split(separator: "\n")
    #expect(lines.count == 1, "\(result.output)")
    let line = try #require(lines.last)
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    #expect(object?["event"] as? String == "didUpdateLocations")
    let location = (object?["locations"] as? [[String: Any]])?.first
    #expect((location?["latitude"] as? Double).map { abs($0 - 47.3769) < 0.01 } == true)
    #expect((location?["timestamp"] as? String)?.hasPrefix("2024-05-01T10:1") == true)
  }

  /// Output another program reads never holds a location nobody measured: piped, with
  /// nothing plugged in, the run waits for a receiver (saying so) and shows it once plugged in.
  @Test func pipedWithoutAReceiverItWaitsForOne() async throws {
    let machine = try ScratchMachine("run")
    let run = try RunningProgram(
      ["--json"], in: scratchDirectory("gpsbridge-run-waits"), environment: machine.environment, keepsOutput: true)
    defer { run.stop() }
    let waiting = "waiting for a receiver to be plugged in (name one with --device PATH, or see the simulated demo drive with --demo)"
    _ = await run.until(timeout: .seconds(20)) { run.said.contains(waiting) || run.said.contains("using gpsd on") }
    // Another test's server on gpsd's port, now or while this ran, is a gpsd the policy rightly takes.
    guard !run.said.contains("using gpsd on") else { return }
    #expect(run.said.contains(waiting), "\(run.said)")
    #expect(!run.printed.contains("didUpdateLocations"), "\(run.printed)")

    let pty = try PseudoTerminal()
    defer { pty.unplug() }
    try machine.plugIn(pty)
    let epochs = Simulation(route: Route.demoDrive.lasting(600).startingNow, profile: .ublox, rate: 5).epochs().prefix(1500).map(\.bytes)
    let playing = Task.detached { await pty.play(bursts: epochs, every: .milliseconds(200)) }
    defer { playing.cancel() }
    #expect(await run.until(timeout: .seconds(60)) { run.printed.contains(#"{"event":"didUpdateLocations""#) }, "\(run.said)")
    #expect(!run.printed.contains(#""identifier":"depot""#), "the demo's regions are not a receiver's")
    // Nothing before the receiver was plugged in either, however long it waited: the demo
    // drive's locations are of 2024, the receiver's of today.
    #expect(!run.printed.contains(#""timestamp":"2024-"#), "\(run.printed.prefix(400))")
  }

  /// `--demo` names the demo drive: what it is for (regions along the drive, monitored from the
  /// start, and locations), and said to be simulated.
  @Test func theDemoWhenAskedForSaysWhatItIs() async throws {
    try await blocking {
      let (process, output, error) = try Program.start(["--demo", "--json"])
      let first = Self.readOutput(output.fileHandleForReading, of: process) {
        String(decoding: $0, as: UTF8.self).contains(#"{"event":"didUpdateLocations""#)
      }
      process.terminate()
      let data = first + output.fileHandleForReading.readDataToEndOfFile()
      let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitForExit()
      #expect(
        message.contains(
          "gpsbridge: this is a simulated drive in real time, not a receiver, shown with --heading --visits --visit-dwell 20"), "\(message)"
      )
      let text = String(decoding: data, as: UTF8.self)
      #expect(text.hasPrefix(#"{"event":"didStartMonitoring","region":{"identifier":"depot""#))
      #expect(text.contains(#"{"event":"didUpdateLocations""#))
    }
  }

  /// With --json, a cause that ends the run says so (`"permanent":true`): random bytes are no
  /// capture, not a fix that may come ("locationUnknown" alone looked like a passing wait).
  @Test func aPermanentErrorSaysSoInJSON() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("random-\(getpid()).bin")
    var generator = SystemRandomNumberGenerator()
    try Data((0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let result = try await Program.run(["--replay", file.path, "--json"])
    #expect(result.status == 1)
    let last = try #require(result.output.split(separator: "\n").last)
    let error = (try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])?["error"] as? [String: Any]
    #expect(error?["permanent"] as? Bool == true, "\(last)")
  }

  /// On a terminal (stdout and stderr the same), a cause that ends the run is said once: the
  /// event line, not an "Error:" line again beneath it.
  @Test func aPermanentErrorOnATerminalIsSaidOnce() async throws {
    let terminal = try PseudoTerminal()
    defer { terminal.unplug() }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-serial-\(getpid())").path
    _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
    defer { unlink(file) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Gpsbridge.executable)
    process.arguments = ["--device", file]
    process.standardOutput = FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
    process.standardError = FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
    try process.run()
    let shown = try await offThePool { () -> String in
      var bytes: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4096)
      let deadline = Date().addingTimeInterval(20)
      while Date() < deadline {
        let count = read(terminal.master, &buffer, buffer.count)
        if count > 0 {
          bytes += buffer[0..<count]
        } else if !process.isRunning {
          break
        } else {
          // Until more is written (the program's end leaves the terminal open: the test holds it).
          var ready = pollfd(fd: terminal.master, events: Int16(POLLIN), revents: 0)
          _ = poll(&ready, 1, 50)
        }
      }
      process.waitForExit()
      return String(decoding: bytes, as: UTF8.self)
    }
    #expect(process.exitStatus == 1)
    #expect(shown.components(separatedBy: "is not a serial device").count - 1 == 1, "\(shown.debugDescription)")
  }

  /// The demo names its regions file by a path that works wherever it is run from (it named
  /// Fixtures/demo.regions.json, which exists only in a checkout's root).
  @Test func theDemosRegionsFileIsNamedByAPathThatExists() async throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Gpsbridge.executable)
    process.arguments = ["--demo", "--json"]
    process.currentDirectoryURL = scratchDirectory("demo-elsewhere")
    let error = Pipe()
    process.standardError = error
    process.standardOutput = FileHandle.nullDevice
    let message = try await Self.errorOutput(of: process, from: error) {
      $0.components(separatedBy: "--regions ").dropFirst().first?.contains(";") == true
    }
    let path = try #require(message.components(separatedBy: "--regions ").dropFirst().first?.split(separator: ";").first, "\(message)")
    #expect(path.hasPrefix("/") && FileManager.default.fileExists(atPath: String(path)), "\(message)")
  }

  /// Before a person's eyes (standard output a terminal), the main job with nothing plugged in
  /// is the README's first command: the demo drive, said to be simulated.
  @Test func onATerminalWithoutAReceiverItShowsTheDemo() async throws {
    let machine = try ScratchMachine("terminal")
    let terminal = try PseudoTerminal()
    defer { terminal.unplug() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Gpsbridge.executable)
    process.environment = ProcessInfo.processInfo.environment.merging(machine.environment) { $1 }
    process.standardOutput = FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
    let error = Pipe()
    process.standardError = error
    let message = try await Self.errorOutput(of: process, from: error) {
      $0.contains("so this is a simulated drive") || $0.contains("using gpsd on")
    }
    guard !message.contains("using gpsd on") else { return }
    #expect(message.contains("so this is a simulated drive in real time, not a receiver, shown with --heading --visits"), "\(message)")
  }

  /// What `handle` gives until `enough` holds of it, or its end (`process` writes it).
  static func readOutput(_ handle: FileHandle, of process: Process, until enough: (Data) -> Bool) -> Data {
    // A program that never writes enough is stopped after a minute: the test fails, and does
    // not wait for its time limit.
    DispatchQueue.global().asyncAfter(deadline: .now() + 60) { if process.isRunning { process.terminate() } }
    var data = Data()
    while !enough(data) {
      let more = handle.availableData
      if more.isEmpty { break }
      data += more
    }
    return data
  }

  /// What `process` says on standard error (`error`) until `enough` holds of it (then it is
  /// stopped), with what it says as it stops.
  static func errorOutput(of process: Process, from error: Pipe, until enough: @escaping @Sendable (String) -> Bool) async throws -> String
  {
    try process.run()
    return try await offThePool {
      let said = readOutput(error.fileHandleForReading, of: process) { enough(String(decoding: $0, as: UTF8.self)) }
      process.terminate()
      let rest = error.fileHandleForReading.readDataToEndOfFile()
      process.waitForExit()
      return String(decoding: said + rest, as: UTF8.self)
    }
  }
}

/// Whether this machine has no receiver plugged in (then the default must be the demo).
enum DeviceDiscoveryHasNoReceiver {
  static let value = DeviceDiscovery().preferredReceiver() == nil
}
