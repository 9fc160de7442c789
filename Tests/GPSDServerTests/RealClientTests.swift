import Foundation
import NMEA
import TestHelpers
import Testing

/// `GPSDServer` read by the programs people run against gpsd: gpspipe, Python's `gps`
/// module, a libgps C program, gpxlogger, gpsmon, gpsctl and cgps. Each checks what it got
/// against the fixture the server replays.
@Suite(
  .serialized, .timeLimit(.minutes(2)),
  .enabled(if: Installed.gpsdClients, "gpsd's clients are not installed (Debian: gpsd-clients python3-gps libgps-dev tmux)"))
struct RealClientTests {
  static let gpspipe = Installed.path("gpspipe")!

  /// gpspipe's lines, as it printed them, with gpsd's `\r` kept (split as bytes: to a
  /// `String`, `\r\n` is one character).
  static func lines(_ output: String) -> [String] {
    output.utf8.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
  }

  @Test func gpspipeWatchingJSONGetsTheFixturesFixesInGPSDsForm() async throws {
    let served = try Served("sirf-nmea22-1hz.nmea", speed: 20)
    // A bound for a machine that is busy (a loaded full run printed 4 of the 40 lines in 20 s).
    let result = try await runProgram(Self.gpspipe, ["-w", "-n", "40", "127.0.0.1:\(served.port)"], timeout: 90)
    let lines = Self.lines(result.output)
    #expect(lines.count == 40, "\(result.output.prefix(2000)) \(result.error)")
    let first = lines.prefix(3).map { line in ["VERSION", "DEVICES", "WATCH"].first { line.hasPrefix(#"{"class":"\#($0)","#) } }
    #expect(first == ["VERSION", "DEVICES", "WATCH"])
    let fixes = Dictionary(served.fixes.compactMap { fix in fix.timestamp.map { ($0.description, fix) } }) { first, _ in first }
    var tpvs = 0
    for line in lines {
      #expect(line.hasSuffix("\r") && line.hasPrefix(#"{"class":""#), "\(line)")
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      guard object["class"] as? String == "TPV", let time = object["time"] as? String, let latitude = object["lat"] as? Double else {
        continue
      }
      let fix = try #require(fixes[time], "no fixture fix at \(time)")
      #expect(abs(latitude - (fix.latitude ?? 0)) < 1e-9 && abs((object["lon"] as? Double ?? 0) - (fix.longitude ?? 0)) < 1e-9)
      #expect(object["mode"] as? Int == 3 && abs((object["speed"] as? Double ?? -1) - (fix.speed ?? 0)) < 1e-3)
      tpvs += 1
    }
    #expect(tpvs >= 10)
  }

  @Test func gpspipeWatchingNMEAGetsTheSentencesAsReplayed() async throws {
    let served = try Served("ublox-m8-1hz.nmea", speed: 20)
    let sentences = served.sentences
    for (flag, name) in [("-r", "nmea"), ("-R", "raw")] {
      let result = try await runProgram(Self.gpspipe, [flag, "-n", "60", "127.0.0.1:\(served.port)"], timeout: 90)
      let received = Self.lines(result.output).filter { $0.hasPrefix("$") }
      #expect(received.count >= 40, "\(name): \(received.count) sentences")
      #expect(received.allSatisfy { $0.hasSuffix("\r") }, "\(name): CRLF")
      // A contiguous run of the fixture's sentences, byte for byte (the capture repeats some
      // sentences word for word, so any start that fits will do).
      let text = received.map { String($0.dropLast()) }
      let fits = sentences.indices.contains { start in
        start + text.count <= sentences.count && Array(sentences[start..<start + text.count]) == text
      }
      #expect(fits, "\(name): the \(text.count) sentences are not a run of the capture; first: \(text.first ?? "none")")
    }
  }

  @Test(.enabled(if: Installed.pythonGPS, "python3-gps is not installed"))
  func pythonsGPSModuleReadsTheFixturesLocations() async throws {
    let served = try Served("sirf-nmea22-1hz.nmea", speed: 20)
    let script = """
      import gps, json
      session = gps.gps(host="127.0.0.1", port=\(served.port), mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
      out = []
      while len(out) < 10:
          report = session.next()
          if report["class"] == "TPV" and "lat" in report:
              out.append({"time": report["time"], "lat": report["lat"], "lon": report["lon"]})
      print(json.dumps(out))
      """
    // /usr/bin/python3: a pyenv python3 on PATH cannot import Debian's gps module.
    let result = try await runProgram("/usr/bin/python3", ["-c", script])
    #expect(result.status == 0, "\(result.error)")
    let reports = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
    let fixes = Dictionary(served.fixes.compactMap { fix in fix.timestamp.map { ($0.description, fix) } }) { first, _ in first }
    #expect(reports.count == 10)
    for report in reports {
      let fix = try #require(fixes[report["time"] as? String ?? ""])
      #expect(abs((report["lat"] as? Double ?? 0) - (fix.latitude ?? 0)) < 1e-9)
      #expect(abs((report["lon"] as? Double ?? 0) - (fix.longitude ?? 0)) < 1e-9)
    }
  }

  /// The libgps client under `Clients/`, built once (off the cooperative pool).
  static let libgpsClient = Task<String?, Never> {
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/libgps-client.c").path
    let binary = FileManager.default.temporaryDirectory.appendingPathComponent("libgps-client-\(getpid())").path
    guard let flags = try? await runProgram("/usr/bin/pkg-config", ["--cflags", "--libs", "libgps"]), flags.status == 0 else {
      return nil
    }
    let compiler = Installed.path("clang") ?? ["/opt/swift/usr/bin/clang"].first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let compiler else { return nil }
    let arguments =
      ["-O1", "-o", binary, source]
      + flags.output.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
      .filter { !$0.isEmpty }
    guard (try? await runProgram(compiler, arguments))?.status == 0 else { return nil }
    return binary
  }

  @Test(.enabled("libgps-dev, pkg-config or clang is missing") { await libgpsClient.value != nil })
  func aLibgpsProgramReadsTheFixturesFixesAndUnpacksEveryLine() async throws {
    let client = try #require(await Self.libgpsClient.value)
    let served = try Served("sirf-nmea22-1hz.nmea", speed: 20)
    let result = try await runProgram(client, ["read", "127.0.0.1", String(served.port), "10"])
    #expect(result.status == 0, "\(result.error)")
    let fixes = Dictionary(served.fixes.compactMap { fix in fix.timestamp.map { ($0.secondsSince1970, fix) } }) { first, _ in first }
    let lines = result.output.split(separator: "\n")
    #expect(lines.count == 10)
    for line in lines {
      let fields = line.split(separator: " ").compactMap { Double($0) }
      let fix = try #require(fixes[fields[0]], "\(line)")
      #expect(abs(fields[1] - (fix.latitude ?? 0)) < 1e-9 && abs(fields[2] - (fix.longitude ?? 0)) < 1e-9)
    }
    // Every line the server sent goes through libgps's own parser, within a time limit (a
    // line libgps cannot take makes it give up or hang).
    // A replay of its own, starting when gpspipe connects: the first may have ended by now.
    let dumped = try Served("sirf-nmea22-1hz.nmea", speed: 20)
    let dump = try await runProgram(Self.gpspipe, ["-w", "-n", "40", "127.0.0.1:\(dumped.port)"], timeout: 90)
    let unpacked = try await runProgram(client, ["unpack"], timeout: 10, input: dump.output)
    #expect(unpacked.status == 0 && unpacked.output == "ok 40\n", "\(unpacked.output) \(unpacked.error)")
  }

  @Test func gpxloggerWritesTheFixturesTrack() async throws {
    let served = try Served("sirf-nmea22-1hz.nmea", speed: 10)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("track-\(getpid()).gpx").path
    defer { unlink(file) }
    _ = FileManager.default.createFile(atPath: file, contents: nil)
    let gpxlogger = Process()
    gpxlogger.executableURL = URL(fileURLWithPath: Installed.path("gpxlogger")!)
    gpxlogger.arguments = ["-f", file, "127.0.0.1:\(served.port)"]
    let written = FileChanges([URL(fileURLWithPath: file)], process: gpxlogger)
    try gpxlogger.runWithSignalsUnblocked()
    // Ten points written (it writes each as it comes), however long a busy machine takes.
    _ = await written.until(timeout: .seconds(60)) {
      ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").components(separatedBy: "<trkpt ").count > 10
    }
    gpxlogger.terminate()
    try await offThePool { gpxlogger.waitForExit() }
    let gpx = try String(contentsOfFile: file, encoding: .utf8)
    let points = gpx.components(separatedBy: "<trkpt lat=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    #expect(points.count >= 10, "\(points.count) points")
    let latitudes = Set(served.fixes.compactMap(\.latitude).map { String(format: "%.9f", $0) })
    #expect(points.allSatisfy { latitudes.contains($0) }, "\(points.prefix(3))")
    // Every point has its epoch's satellites and DOP, the first too: SKY comes before TPV.
    let bodies = gpx.components(separatedBy: "<trkpt ").dropFirst()
    #expect(bodies.allSatisfy { $0.contains("<sat>7</sat>") && $0.contains("<hdop>") }, "\(bodies.prefix(2))")
  }

  @Test func gpsmonShowsTheSentences() async throws {
    let served = try Served("sirf-nmea22-1hz.nmea", speed: 10)
    let directory = scratchDirectory("gpsmon")
    // Line by line (gpsmon's output is a file, which stdio buffers whole), read until it has
    // shown enough: however long a busy machine takes to start it, and nothing is lost when
    // it is stopped.
    let gpsmon = try RunningProgram(
      ["-oL", Installed.path("gpsmon")!, "-a", "127.0.0.1:\(served.port)"], in: directory, keepsOutput: true,
      program: Installed.path("stdbuf")!)
    func shown() -> [String] {
      Self.lines(gpsmon.printed).compactMap { line -> String? in
        guard let start = line.firstIndex(of: "$") else { return nil }
        return String(line[start...]).trimmingCharacters(in: .whitespacesAndNewlines)
      }
    }
    _ = await gpsmon.until(timeout: .seconds(60)) { shown().count >= 6 }
    gpsmon.stop()
    let sentences = shown()
    #expect(sentences.count >= 6, "\(gpsmon.printed.suffix(300)) \(gpsmon.said)")
    // (The last line may be cut short where gpsmon was stopped.)
    let strangers = sentences.dropLast().filter { !served.sentences.contains($0) }
    #expect(strangers.isEmpty, "\(strangers.prefix(3))")
  }

  @Test(.enabled(if: Installed.path("tmux") != nil, "tmux is not installed"))
  func cgpsShowsTheFix() async throws {
    let served = try Served("sirf-nmea22-1hz.nmea", speed: 2)
    let session = "cgps-\(getpid())"
    // Through the shell, with tmux's output sent nowhere: the server tmux leaves behind
    // would otherwise hold a pipe of ours open.
    #expect(shell("tmux new-session -d -s \(session) -x 120 -y 40 'cgps 127.0.0.1:\(served.port)' </dev/null >/dev/null 2>&1").status == 0)
    defer { _ = shell("tmux kill-session -t \(session) </dev/null >/dev/null 2>&1") }
    var screen = ""
    // Within the replay's minute (at twice real time): a loaded full run's cgps showed no fix
    // in 20 s.
    _ = await eventually(timeout: .seconds(50)) {
      screen = shell("tmux capture-pane -p -t \(session)").output
      return screen.contains("3D SIM FIX")
    }
    // A replay is served as simulated (TPV status 8), and cgps says so.
    #expect(screen.contains("3D SIM FIX"), "\(screen)")
    #expect(screen.contains("33.860") && screen.contains("151.21"), "\(screen)")
    #expect(screen.contains("Seen  7/Used  7"), "\(screen)")
    // cgps compares the server's release with its own and warns when they differ.
    #expect(!screen.contains("WARNING"), "\(screen)")
    // The figures gpsd computes are filled in, not n/a: the DOPs and errors at once, the
    // rates from the second fix on.
    func filled(_ label: String) -> Bool {
      screen.split(separator: "\n").contains { $0.contains(label) && !$0.contains("n/a") }
    }
    _ = await eventually(timeout: .seconds(10)) {
      screen = shell("tmux capture-pane -p -t \(session)").output
      return filled("Speed Err (EPS)")
    }
    for label in [
      "(XDOP, EPX)", "(YDOP, EPY)", "(VDOP, EPV)", "(HDOP, CEP)", "(PDOP, SEP)", "(TDOP)", "(GDOP)", "Speed Err (EPS)", "Climb",
    ] {
      #expect(filled(label), "\(label): \(screen)")
    }
  }

  static var canRunXGPS: Bool {
    Installed.path("xgps") != nil && Installed.path("xvfb-run") != nil
      && shell("/usr/bin/python3 -c \"import gi; gi.require_version('Gtk', '3.0')\" 2>/dev/null").status == 0
  }

  /// xgps, on a virtual display, connects and shows the fix without the warning it gives a
  /// server whose release is not its own.
  @Test(
    .enabled(
      if: canRunXGPS, "xgps, xvfb-run or GTK for Python is not installed (Debian: gpsd-clients xvfb xauth gir1.2-gtk-3.0 python3-gi-cairo)")
  )
  func xgpsConnectsWithoutAWarning() async throws {
    let served = try Served("sirf-nmea22-1hz.nmea", speed: 2)
    // xvfb-run starts Xvfb and xgps, which run until stopped: the whole process group is.
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Installed.path("xvfb-run")!)
    process.arguments = ["-a", "xgps", "127.0.0.1:\(served.port)"]
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let result = await finish(process, reading: [output, error], timeout: 8) { kill(-$0.processIdentifier, SIGTERM) }
    // xgps runs until it is closed: it was stopped, not ended by an error.
    #expect(!result.endedByItself, "xgps ended by itself: \(result.error)")
    #expect(!result.error.contains("WARNING") && !result.error.contains("different than expected"), "\(result.error)")
    // The replay starts when a client watches: fixes went out only if xgps watched.
    #expect(served.server.statistics.fixes > 0, "xgps never watched")
  }
}
