import Foundation
import NMEASimulation
import TestHelpers
import Testing

/// `gpsbridge serve` never gives gpsd's clients a fix nobody measured: with nothing plugged in
/// it waits, saying so, and serves the receiver plugged in later; what it replays or simulates
/// is marked as simulated where gpsd clients look (TPV status 8, DEVICE subtype).
@Suite(.serialized, .timeLimit(.minutes(2)))
struct NoMadeUpFixTests {
  /// A watching client of the server on `port`, once it listens.
  static func watcher(port: Int) async throws -> RawClient {
    var client: RawClient?
    _ = await eventually(timeout: .seconds(20)) {
      client = try? RawClient(port: port)
      return client != nil
    }
    let watching = try #require(client, "nothing listens on \(port)")
    try watching.send(#"?WATCH={"enable":true,"json":true}"# + "\n")
    return watching
  }

  static func object(_ line: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
  }

  /// TPVs with a position (mode 2 or 3) among `lines`.
  static func fixes(_ lines: [String]) -> [[String: Any]] {
    lines.compactMap(object).filter { $0["class"] as? String == "TPV" && ($0["mode"] as? Int ?? 0) >= 2 }
  }

  @Test func withNothingPluggedInItWaitsAndServesTheReceiverPluggedInLater() async throws {
    let machine = try ScratchMachine("serve")
    let port = FakeGPSD.freePort()
    let serve = try RunningProgram(
      ["serve", "--listen", "127.0.0.1:\(port)"], in: scratchDirectory("gpsbridge-no-made-up-fix"), environment: machine.environment)
    defer { serve.stop() }
    let client = try await Self.watcher(port: port)
    // Before: no fix at all (the demo drive used to be served here, a 3D fix a second).
    let before = await client.read(for: 4)
    #expect(Self.fixes(before).isEmpty, "\(before)")
    #expect(serve.said.contains("gpsbridge: No receiver is plugged in yet: waiting for one"), "\(serve.said)")
    #expect(serve.said.contains("serving every receiver plugged in to gpsd clients"), "\(serve.said)")

    let pty = try PseudoTerminal()
    defer { pty.unplug() }
    let node = try machine.plugIn(pty)
    let epochs = Simulation(route: Route.demoDrive.lasting(600).startingNow, profile: .ublox, rate: 5).epochs().prefix(1500).map(\.bytes)
    let playing = Task.detached { await pty.play(bursts: epochs, every: .milliseconds(200)) }
    defer { playing.cancel() }
    let after = await client.read(for: 60) { lines in !Self.fixes(lines).isEmpty }
    let fix = try #require(Self.fixes(after).first, "\(after.suffix(10)) \(serve.said)")
    #expect(fix["device"] as? String == node)
    // A receiver's fix is no simulation.
    #expect(fix["status"] as? Int != 8, "\(fix)")
    #expect(serve.exitStatus == nil, "\(serve.said)")
  }

  @Test(arguments: [["--demo"], ["--replay", Served.fixtures.appendingPathComponent("sirf-nmea22-1hz.nmea").path, "--speed", "4"]])
  func aReplayOrTheDemoIsMarkedAsSimulated(_ source: [String]) async throws {
    let port = FakeGPSD.freePort()
    let serve = try RunningProgram(
      ["serve", "--listen", "127.0.0.1:\(port)"] + source, in: scratchDirectory("gpsbridge-no-made-up-fix"),
      environment: try ScratchMachine("marked").environment)
    defer { serve.stop() }
    let client = try await Self.watcher(port: port)
    let lines = await client.read(for: 30) { lines in Self.fixes(lines).count >= 2 }
    let fixes = Self.fixes(lines)
    #expect(fixes.count >= 2, "\(lines) \(serve.said)")
    for fix in fixes { #expect(fix["status"] as? Int == 8, "\(fix)") }
    // DEVICES as the watch begins, and any DEVICE after it, say what it is.
    let devices = lines.compactMap(Self.object).flatMap { object in
      object["class"] as? String == "DEVICE" ? [object] : (object["devices"] as? [[String: Any]] ?? [])
    }
    #expect(!devices.isEmpty, "\(lines)")
    for device in devices { #expect(device["subtype"] as? String == "simulated", "\(device)") }
    if source == ["--demo"] {
      #expect(serve.said.contains("serving the simulated demo drive (--demo), not a receiver"), "\(serve.said)")
    }
  }
}
