import Foundation
import TestHelpers
import Testing

/// `gpsbridge serve`, the program: what it says, and round trips through gpsbridge itself.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ServeProgramTests {
  static func freePort() -> Int { FakeGPSD.freePort() }

  /// Starts `gpsbridge serve arguments`; stop it with `terminate()`.
  static func startServe(_ arguments: [String]) throws -> (Process, Pipe) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Gpsbridge.executable)
    process.arguments = ["serve"] + arguments
    let error = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = error
    try process.run()
    return (process, error)
  }

  @Test func aGpsbridgeClientOfAGpsbridgeServerGetsTheReplaysLocations() async throws {
    let capture = Served.fixtures.appendingPathComponent("sirf-nmea22-1hz.nmea").path
    let port = Self.freePort()
    let server = try RunningProgram(
      ["serve", "--replay", capture, "--speed", "4", "--listen", "127.0.0.1:\(port)"], in: scratchDirectory("client-of-serve-\(port)"))
    defer { server.stop() }
    // Through gpsd's protocol, until the server's capture ends and it exits (the client then
    // says the connection was lost and keeps trying; it is stopped then).
    let client = Process()
    client.executableURL = URL(fileURLWithPath: Gpsbridge.executable)
    client.arguments = ["--gpsd", "127.0.0.1:\(port)", "--json"]
    let output = Pipe()
    client.standardOutput = output
    client.standardError = FileHandle.nullDevice
    try client.run()
    let direct = try await runProgram(Gpsbridge.executable, ["--replay", capture, "--speed", "max", "--json"])
    _ = await server.ended(within: .seconds(60))
    client.terminate()
    let served = try await offThePool {
      let served = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      client.waitForExit()
      return served
    }
    func locations(_ output: String) -> [String: (Double, Double)] {
      var result: [String: (Double, Double)] = [:]
      for line in output.split(separator: "\n") {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
          let location = (object["locations"] as? [[String: Any]])?.first, let time = location["timestamp"] as? String
        else { continue }
        result[time] = (location["latitude"] as! Double, location["longitude"] as! Double)
      }
      return result
    }
    let viaServer = locations(served), replayed = locations(direct.output)
    #expect(viaServer.count >= 20, "\(viaServer.count) locations through the server")
    for (time, position) in viaServer {
      let expected = try #require(replayed[time], "\(time)")
      #expect(abs(position.0 - expected.0) < 1e-9 && abs(position.1 - expected.1) < 1e-9, "\(time)")
    }
  }

  @Test func aPortInUseSaysWhatToDo() async throws {
    let blocker = try Served("sirf-nmea22-1hz.nmea", waitForClient: true)
    let result = try await runProgram(
      Gpsbridge.executable, ["serve", "--replay", "-", "--listen", "127.0.0.1:\(blocker.port)"], timeout: 10, input: "")
    // The blocker is this test process: named, and no talk of gpsd.
    let me = try String(contentsOfFile: "/proc/self/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(result.status == 1)
    #expect(
      result.error.contains("127.0.0.1:\(blocker.port) is in use by \(me) (pid \(getpid())). Stop that program, or use --listen"),
      "\(result.error)")
    #expect(!result.error.contains("gpsd"), "\(result.error)")
  }

  /// Another program on the port is named; gpsd.socket is advised only when it is gpsd.
  @Test(arguments: [("python3", false), ("gpsd", true)])
  func aPortInUseNamesWhoHoldsIt(_ name: String, _ advisesGPSDSocket: Bool) async throws {
    let port = Self.freePort()
    // A listener whose program name is `name` (Python renames its own process).
    let holder = try RunningProgram(
      [
        "-c",
        "import signal, socket, sys; open('/proc/self/comm', 'w').write(sys.argv[2]); s = socket.socket(); "
          + "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(); "
          + "print('listening', flush=True); signal.pause()",
        "\(port)", name,
      ], in: scratchDirectory("holder-\(port)"), keepsOutput: true, program: "/usr/bin/python3")
    defer { holder.stop() }
    #expect(await holder.until { holder.printed.contains("listening") }, "\(holder.said)")
    let result = try await runProgram(
      Gpsbridge.executable, ["serve", "--replay", "-", "--listen", "127.0.0.1:\(port)"], timeout: 10, input: "")
    #expect(result.status == 1)
    #expect(result.error.contains("127.0.0.1:\(port) is in use by \(name) (pid \(holder.process.processIdentifier))"), "\(result.error)")
    #expect(result.error.contains("systemctl disable --now gpsd.socket") == advisesGPSDSocket, "\(result.error)")
  }

  /// `--loop` plays a capture again at its end, so a client that came late still gets fixes;
  /// it says so on stderr.
  @Test(.enabled(if: Installed.path("gpspipe") != nil, "gpspipe is not installed (Debian: gpsd-clients)"))
  func aLoopedReplayPlaysAgainAtItsEnd() async throws {
    let scratch = scratchDirectory("loop-\(UUID().uuidString.prefix(8))")
    let capture = scratch.appendingPathComponent("short.nmea").path
    let made = try await runProgram(
      Gpsbridge.executable, ["simulate", "--duration", "4", "--output", capture], timeout: 30, input: "")
    try #require(made.status == 0, "\(made.error)")
    let port = Self.freePort()
    let server = try RunningProgram(
      ["serve", "--replay", capture, "--speed", "8", "--loop", "--listen", "127.0.0.1:\(port)"], in: scratch)
    defer { server.stop() }
    #expect(await server.serving(), "\(server.said)")
    // Four epochs in the capture; twelve TPVs need three rounds.
    let client = try await runProgram(
      Installed.path("gpspipe")!, ["-w", "-n", "40", "127.0.0.1:\(port)"], timeout: 60, input: "")
    let reports = client.output.split(whereSeparator: \.isNewline).filter { $0.contains(#""class":"TPV""#) && $0.contains(#""mode":3"#) }
    #expect(reports.count >= 12, "\(client.output) \(client.error)")
    #expect(server.process.isRunning)
    server.stop()
    let said = server.said
    #expect(said.contains("playing it again from its beginning (round 2)"), "\(said)")
  }

  @Test func listeningBeyondThisMachineWarns() async throws {
    try await blocking {
      let port = Self.freePort()
      let (server, error) = try Self.startServe(["--replay", "-", "--listen", "0.0.0.0:\(port)"])
      let warning = "warning: listening on 0.0.0.0:\(port), beyond this machine"
      // Read until the warning comes (or the server ends, which it should not).
      var said = Data()
      while !String(decoding: said, as: UTF8.self).contains(warning) {
        let more = error.fileHandleForReading.availableData
        if more.isEmpty { break }
        said += more
      }
      server.terminate()
      server.waitForExit()
      let message = String(decoding: said + error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      #expect(message.contains(warning), "\(message)")
    }
  }

  /// gpsctl always asks localhost:2947: in a network namespace of its own, that is ours.
  static let canUnshareNetwork =
    getuid() == 0 && Installed.path("gpsctl") != nil && shell("unshare -n true 2>/dev/null").status == 0
    && shell("command -v ip >/dev/null").status == 0

  @Test(.enabled(if: canUnshareNetwork, "needs root, unshare -n, ip (iproute2) and gpsctl"))
  func gpsctlIdentifiesTheDevice() async throws {
    let capture = Served.fixtures.appendingPathComponent("sirf-nmea22-1hz.nmea").path
    // gpsctl once serve says it serves (it listens by then) and a client has had a fix from
    // the replay, so serve lists it as its device (a loaded run that asked at once was told
    // "no devices connected"); tail goes with serve.
    let script = """
      ip link set lo up
      said=$(mktemp)
      '\(Gpsbridge.executable)' serve --replay '\(capture)' --speed 5 2>"$said" &
      grep -q -m1 'gpsbridge: serving' <(tail -n +1 -f --pid=$! "$said")
      timeout 30 gpspipe -w 2>/dev/null | grep -q -m1 '"class":"TPV"'
      answer=$(gpsctl 2>&1)
      echo "$answer"
      kill %1
      rm -f "$said"
      """
    let result = try await runProgram("/usr/bin/unshare", ["-n", "bash", "-c", script], timeout: 60)
    #expect((result.output + result.error).contains("\(capture) identified as a NMEA0183"), "\(result.output)\(result.error)")
  }
}
