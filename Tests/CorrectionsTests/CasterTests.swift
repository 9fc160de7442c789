import Foundation
import TestHelpers
import Testing

/// A simulated RTK rover on a pty, `serve --ntrip` and RTKLIB's str2str as the caster: the
/// rover reaches RTK fixed on the corrections, falls back when the caster stops, and comes
/// back when it restarts; a wrong password or mountpoint is a clear stop.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct CasterTests {
  static func fixQuality(_ port: Int) async -> String? {
    guard let body = await fetch("/status.json", port: port),
      let status = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
      let receiver = (status["receivers"] as? [[String: Any]])?.first, let fix = receiver["fix"] as? [String: Any]
    else { return nil }
    return fix["quality"] as? String
  }

  @Test(.enabled(if: Caster.str2str != nil, "str2str is not installed (Debian: rtklib)"))
  func theRoverReachesRTKFixedFallsBackAndComesBack() async throws {
    let directory = scratchDirectory("caster-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let caster = Caster()
    try caster.start()
    defer { caster.stop() }
    let link = directory.appendingPathComponent("rover0").path
    let rover = try await startRover(at: link, in: directory)
    defer { rover.stop() }
    let httpPort = FakeGPSD.freePort()
    let gpsdPort = FakeGPSD.freePort()
    let serve = try RunningProgram(
      [
        "serve", "--device", link, "--listen", "127.0.0.1:\(gpsdPort)", "--http", "\(httpPort)",
        "--ntrip", "ntrip://user:secret@127.0.0.1:\(caster.port)/BASE1",
      ], in: directory)
    defer { serve.stop() }
    var quality: String?
    #expect(
      await eventually(timeout: .seconds(90), every: .milliseconds(500)) {
        quality = await Self.fixQuality(httpPort)
        return quality == "RTK fixed"
      }, "the fix is \(quality ?? "none"); serve said: \(serve.said)")
    #expect(!serve.said.contains("user:secret") && !serve.said.contains("secret"), "\(serve.said)")
    // The fix's moves are said; the stream's health is on the page and in the metrics.
    #expect(serve.said.contains("the fix went from DGPS to RTK float."), "\(serve.said)")
    #expect(serve.said.contains("the fix went from RTK float to RTK fixed."), "\(serve.said)")
    let metrics = await fetch("/metrics", port: httpPort) ?? ""
    #expect(metrics.contains(#"gpsbridge_corrections_connected{device="\#(link)"} 1"#), "\(metrics)")
    #expect(metrics.contains(#"gpsbridge_corrections_messages_total{device="\#(link)",type="1005"} "#), "\(metrics)")
    let page = await fetch("/status.json", port: httpPort) ?? ""
    #expect(page.contains(#""source":"ntrip://127.0.0.1:\#(caster.port)/BASE1""#) && !page.contains("secret"), "\(page)")
    // ?DEVICES lists the stream after the receiver, as gpsd lists its DGPS sources, with its
    // health and without the password; libgps (cgps, xgps) still reads that list.
    let devices = try #require(FakeGPSD.devicesLine(port: gpsdPort))
    #expect(devices.contains(#""path":"ntrip://127.0.0.1:\#(caster.port)/BASE1","driver":"NTRIP","activated":""#), "\(devices)")
    #expect(devices.contains(#""connected":true,"state":"streaming""#) && devices.contains(#""messages":"1005,1074""#), "\(devices)")
    #expect(!devices.contains("secret"), "\(devices)")
    if let parsed = await libgpsReads(devices) { #expect(parsed, "libgps could not read \(devices)") }
    // The mountpoint does not ask for the rover's position, so none went up.
    #expect(caster.upstream.isEmpty, "\(caster.upstream)")

    // The caster goes: the corrections age out, the fix falls back, and that is said.
    caster.stop()
    #expect(
      await eventually(timeout: .seconds(60), every: .milliseconds(500)) {
        quality = await Self.fixQuality(httpPort)
        return quality == "GPS"
      }, "the fix is \(quality ?? "none"); serve said: \(serve.said)")
    #expect(serve.said.contains("gpsbridge: corrections from ntrip://127.0.0.1:\(caster.port)/BASE1:"), "\(serve.said)")

    // It comes back: so do the corrections, and RTK fixed.
    try caster.start()
    #expect(
      await eventually(timeout: .seconds(120), every: .milliseconds(500)) {
        quality = await Self.fixQuality(httpPort)
        return quality == "RTK fixed"
      }, "the fix is \(quality ?? "none"); serve said: \(serve.said)")
  }

  @Test(.enabled(if: Caster.str2str != nil, "str2str is not installed (Debian: rtklib)"))
  func aCasterThatWantsTheRoversPositionGetsItsGGAAndAnUnpluggedRoverResumes() async throws {
    let directory = scratchDirectory("caster-gga-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let caster = Caster(wantsGGA: true)
    try caster.start()
    defer { caster.stop() }
    let link = directory.appendingPathComponent("rover0").path
    var rover = try await startRover(at: link, in: directory)
    defer { rover.stop() }
    let httpPort = FakeGPSD.freePort()
    let serve = try RunningProgram(
      [
        "serve", "--device", link, "--listen", "127.0.0.1:\(FakeGPSD.freePort())", "--http", "\(httpPort)",
        "--ntrip", "ntrip://user:secret@127.0.0.1:\(caster.port)/BASE1",
      ], in: directory)
    defer { serve.stop() }

    // The sourcetable says nmea=1: the rover's own GGA goes up (str2str relays it back to its
    // station), with the position the rover reports.
    #expect(
      await eventually(timeout: .seconds(90), every: .milliseconds(500)) { await Self.fixQuality(httpPort) == "RTK fixed" },
      "serve said: \(serve.said)")
    #expect(await caster.until(timeout: .seconds(30)) { caster.upstream.contains { $0.contains("GGA,") } }, "\(caster.upstream)")
    let gga = try #require(caster.upstream.last { $0.contains("GGA,") })
    let fields = gga.split(separator: ",", omittingEmptySubsequences: false)
    let status = await fetch("/status.json", port: httpPort) ?? ""
    let position = try #require(
      (try? JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any]).flatMap {
        (($0["receivers"] as? [[String: Any]])?.first?["fix"] as? [String: Any])
      })
    let latitude = try #require(Double(fields[2].prefix(2))).advanced(by: (Double(fields[2].dropFirst(2)) ?? 0) / 60)
    let longitude = try #require(Double(fields[4].prefix(3))).advanced(by: (Double(fields[4].dropFirst(3)) ?? 0) / 60)
    #expect(abs(latitude - (position["latitude"] as? Double ?? 0)) < 0.01, "\(gga) against \(position)")
    #expect(abs(longitude - (position["longitude"] as? Double ?? 0)) < 0.01, "\(gga) against \(position)")
    #expect(checksumHolds(gga), "\(gga)")

    // The rover is unplugged while corrections flow: forwarding pauses, the stream stays.
    rover.stop()
    #expect(
      await serve.until(timeout: .seconds(30)) { serve.said.contains("paused: the receiver is away; they resume when it is back.") },
      "\(serve.said)")
    let paused = await fetch("/status.json", port: httpPort) ?? ""
    #expect(paused.contains(#""state":"paused: the receiver is away""#), "\(paused)")
    // It comes back at the same path: so do the corrections, and RTK fixed.
    rover = try await startRover(at: link, in: directory)
    #expect(
      await serve.until(timeout: .seconds(60)) { serve.said.contains("resumed: the receiver is back.") }, "\(serve.said)")
    #expect(
      await eventually(timeout: .seconds(90), every: .milliseconds(500)) { await Self.fixQuality(httpPort) == "RTK fixed" },
      "serve said: \(serve.said)")
    #expect(serve.process.isRunning)
  }

  @Test(.enabled(if: Caster.str2str != nil, "str2str is not installed (Debian: rtklib)"))
  func theMainJobTakesCorrectionsToo() async throws {
    let directory = scratchDirectory("caster-run-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let caster = Caster()
    try caster.start()
    defer { caster.stop() }
    let link = directory.appendingPathComponent("rover0").path
    let rover = try await startRover(at: link, in: directory)
    defer { rover.stop() }
    let run = try RunningProgram(
      ["--device", link, "--json", "--ntrip", "ntrip://user:secret@127.0.0.1:\(caster.port)/BASE1"], in: directory, keepsOutput: true)
    defer { run.stop() }
    // The locations say the quality and the corrections' station; stderr says the moves.
    #expect(
      await run.until(timeout: .seconds(90)) { run.printed.contains(#""fixQuality":"rtkFixed""#) },
      "\(run.said)")
    #expect(run.printed.contains(#""correctionStation":"#), "\(run.printed.suffix(600))")
    #expect(run.said.contains("gpsbridge: corrections for \(link) from ntrip://127.0.0.1:\(caster.port)/BASE1."), "\(run.said)")
    #expect(run.said.contains("gpsbridge: the fix went from RTK float to RTK fixed."), "\(run.said)")
    #expect(!run.said.contains("secret") && !run.printed.contains("secret"))
    run.stop()

    // A refused password cannot go away: the run ends with exit 1 and says why.
    let refused = try RunningProgram(
      ["--device", link, "--json", "--ntrip", "ntrip://user:wrong@127.0.0.1:\(caster.port)/BASE1"], in: directory)
    defer { refused.stop() }
    #expect(await refused.ended(within: .seconds(30)), "\(refused.said)")
    #expect(refused.exitStatus == 1)
    #expect(refused.said.contains("Error: corrections: the caster 127.0.0.1 refused the user and password (401)."), "\(refused.said)")
  }

  /// Whether an NMEA sentence's checksum holds.
  func checksumHolds(_ sentence: String) -> Bool {
    guard sentence.hasPrefix("$"), let star = sentence.lastIndex(of: "*") else { return false }
    let sum = sentence.utf8[sentence.utf8.index(after: sentence.utf8.startIndex)..<star.samePosition(in: sentence.utf8)!].reduce(0, ^)
    return UInt8(sentence[sentence.index(after: star)...].prefix(2), radix: 16) == sum
  }

  /// Whether the system libgps (gpsd's client library, as cgps and xgps use it) reads `line`
  /// without an error; `nil` when there is no libgps to ask.
  func libgpsReads(_ line: String) async -> Bool? {
    guard
      FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libgps.so.28")
        || FileManager.default.fileExists(atPath: "/usr/lib/aarch64-linux-gnu/libgps.so.28")
    else { return nil }
    let script = """
      import ctypes, sys
      lib = ctypes.CDLL("libgps.so.28")
      data = ctypes.create_string_buffer(1 << 20)
      end = ctypes.c_char_p()
      sys.exit(lib.libgps_json_unpack(sys.argv[1].encode(), data, ctypes.byref(end)))
      """
    guard let result = try? await runProgram(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, line]) else { return nil }
    return result.status == 0
  }

  @Test(.enabled(if: Caster.str2str != nil, "str2str is not installed (Debian: rtklib)"))
  func aWrongPasswordIsAClearStopAndAMissingMountpointIsSaid() async throws {
    let directory = scratchDirectory("caster-refused-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let caster = Caster()
    try caster.start()
    defer { caster.stop() }
    let link = directory.appendingPathComponent("rover0").path
    let rover = try await startRover(at: link, in: directory)
    defer { rover.stop() }
    let cases = [
      (
        "ntrip://user:wrong@127.0.0.1:\(caster.port)/BASE1", "Error: corrections: the caster 127.0.0.1 refused the user and password (401)."
      ),
      (
        "ntrip://user:secret@127.0.0.1:\(caster.port)/NOPE",
        "corrections from ntrip://127.0.0.1:\(caster.port)/NOPE: the caster has no mountpoint 'NOPE' now (it has BASE1): it may be offline, or misspelt"
      ),
    ]
    for (url, expected) in cases {
      let serve = try RunningProgram(
        ["serve", "--device", link, "--listen", "127.0.0.1:\(FakeGPSD.freePort())", "--ntrip", url], in: directory)
      #expect(await serve.until(timeout: .seconds(30)) { serve.said.contains(expected) }, "\(url): \(serve.said)")
      #expect(!serve.said.contains("wrong") && !serve.said.contains("secret"), "\(serve.said)")
      // The receiver is still served: only the corrections stopped.
      #expect(serve.process.isRunning)
      serve.stop()
    }
  }
}
