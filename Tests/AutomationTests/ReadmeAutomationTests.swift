import Foundation
import Plumbing
import TestHelpers
import Testing

/// The README's "Home Assistant and MQTT", "Webhooks" and "A fleet of boxes": their commands
/// run as written, but for the ports (a private Mosquitto for localhost's, a second one for the
/// central broker) and the TLS lines the loopback bridge has no use for.
@Suite(
  .serialized, .timeLimit(.minutes(4)), .enabled(if: Broker.mosquitto != nil && Broker.subscriber != nil, "mosquitto is not installed"))
struct ReadmeAutomationTests {
  static func section(_ title: String) throws -> String {
    try Documentation.section(title)
  }

  /// The lines of the section's code blocks.
  static func commands(_ section: String) -> [String] {
    section.components(separatedBy: "```").enumerated().filter { $0.offset % 2 == 1 }.flatMap {
      $0.element.split(separator: "\n").dropFirst()
    }
    .map(String.init)
  }

  @Test func theMQTTTryItLinesShowTheTrackerGoingHomeAndAway() async throws {
    let directory = scratchDirectory("readme-mqtt-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let broker = try Broker(directory: directory)
    try broker.start()
    defer { broker.stop() }
    let lines = Self.commands(try Self.section("Home Assistant and MQTT")).filter {
      $0.hasPrefix("gpsbridge simulate") || $0.hasPrefix("mosquitto_sub -h localhost") || $0.hasPrefix("gpsbridge --replay")
    }
    #expect(lines.count == 3, "\(lines)")
    let script = lines.map {
      $0.replacingOccurrences(of: "mqtt://localhost/", with: "mqtt://127.0.0.1:\(broker.port)/")
        .replacingOccurrences(of: "-h localhost", with: "-h 127.0.0.1 -p \(broker.port)")
    }.joined(separator: "\n").replacingOccurrences(
      of: "&\ngpsbridge --replay", with: "&\n\(broker.untilSubscribed(to: "homeassistant/#"))\ngpsbridge --replay")
    let shell = try ShellScript(script, in: directory)
    defer { shell.stop() }
    #expect(
      await shell.until(timeout: .seconds(90)) { shell.printed.contains("gpsbridge/drive_nmea/state home") },
      "\(shell.printed.suffix(2000))\n\(shell.said)")
    #expect(await shell.until(timeout: .seconds(60)) { shell.said.contains("MQTT: ") }, "\(shell.said)")
    let received = shell.printed
    let states = received.split(separator: "\n").filter { $0.hasPrefix("gpsbridge/drive_nmea/state ") }.map {
      $0.split(separator: " ").last!
    }
    #expect(states == ["not_home", "home", "not_home"], "\(received.suffix(3000))")
    #expect(received.contains("homeassistant/device_tracker/gpsbridge_"))
    // Said last, after the run's own summary: it may reach the subscriber a moment later.
    #expect(await shell.until(timeout: .seconds(20)) { shell.printed.contains("gpsbridge/availability offline") })
  }

  @Test func theWebhookTryItLinePostsTheCrossings() async throws {
    let directory = scratchDirectory("readme-webhook-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try WebhookTests.Receiver(mode: "flaky", in: directory)
    defer { receiver.stop() }
    let line = try #require(Self.commands(try Self.section("Webhooks")).first { $0.hasPrefix("gpsbridge --replay") })
    let (capture, _) = try await BrokerTests.drive(in: directory)
    let command = line.replacingOccurrences(of: "localhost:8080", with: "127.0.0.1:\(receiver.port)")
      .replacingOccurrences(of: "drive.nmea", with: capture).split(separator: " ").dropFirst().map(String.init)
    let run = try await runProgram(URL(fileURLWithPath: Gpsbridge.executable), command, timeout: 90)
    #expect(run.status == 0, "\(run.error)")
    let delivered = receiver.requests.filter { $0.status == 200 }.map(\.body)
    #expect(
      delivered.count == 2 && delivered[0].contains(#""event":"didEnterRegion""#) && delivered[1].contains(#""event":"didExitRegion""#),
      "\(delivered)")
  }

  @Test func aBoxsEventsReachTheCentralBrokerThroughTheBridge() async throws {
    let directory = scratchDirectory("readme-fleet-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let centralDirectory = directory.appendingPathComponent("central")
    try FileManager.default.createDirectory(at: centralDirectory, withIntermediateDirectories: true)
    let central = try Broker(directory: centralDirectory)
    try central.start()
    defer { central.stop() }
    let section = try Self.section("A fleet of boxes")
    let blocks = section.components(separatedBy: "```").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    // The box's own broker, with the README's configuration (no TLS on loopback).
    let configuration = try #require(blocks.first { $0.contains("connection central") })
    let boxPort = FakeGPSD.freePort()
    let boxConfiguration = configuration.split(separator: "\n").filter { !$0.hasPrefix("bridge_cafile") }.map {
      $0.replacingOccurrences(of: "listener 1883", with: "listener \(boxPort)")
        .replacingOccurrences(of: "central.example.org:8883", with: "127.0.0.1:\(central.port)")
    }.joined(separator: "\n")
    let boxFile = directory.appendingPathComponent("fleet.conf")
    try Data((boxConfiguration + "\n").utf8).write(to: boxFile)
    let box = Process()
    box.executableURL = URL(fileURLWithPath: Broker.mosquitto!)
    box.arguments = ["-c", boxFile.path]
    box.standardOutput = FileHandle.nullDevice
    box.standardError = FileHandle.nullDevice
    try box.runWithSignalsUnblocked()
    defer {
      kill(box.processIdentifier, SIGKILL)
      box.waitForExit()
    }
    // The centre's subscription, as the README gives it.
    let subscribe = try #require(Self.commands(section).first { $0.hasPrefix("mosquitto_sub -h central.example.org") })
      .replacingOccurrences(of: "-h central.example.org -p 8883 --capath /etc/ssl/certs", with: "-h 127.0.0.1 -p \(central.port)")
    // The box's serve, on the demo drive instead of a receiver.
    let (capture, home) = try await BrokerTests.drive(in: directory)
    let parts = home.split(separator: ",")
    try Data(#"[{"identifier": "home", "center": {"latitude": \#(parts[1]), "longitude": \#(parts[2])}, "radius": 50}]"#.utf8)
      .write(to: directory.appendingPathComponent("regions.json"))
    let serve =
      try #require(Self.commands(section).first { $0.hasPrefix("gpsbridge serve") })
      .replacingOccurrences(of: "/etc/gpsbridge/regions.json", with: directory.appendingPathComponent("regions.json").path)
      .replacingOccurrences(of: "mqtt://localhost/", with: "mqtt://127.0.0.1:\(boxPort)/")
      + " --replay \(capture) --speed 10 --listen 127.0.0.1:\(FakeGPSD.freePort())"
    let shell = try ShellScript(subscribe + " &\n\(central.untilSubscribed(to: "fleet/+/+/actions"))\n" + serve, in: directory)
    defer { shell.stop() }
    #expect(
      await shell.until(timeout: .seconds(90)) {
        let received = shell.printed
        return received.contains(#"fleet/van7/drive_nmea/actions {"event":"didEnterRegion""#)
          && received.contains(#"fleet/van7/drive_nmea/actions {"event":"didExitRegion""#)
      }, "\(shell.printed.suffix(2000))\n\(shell.said)")
  }
}
