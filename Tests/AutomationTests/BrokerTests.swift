import Foundation
import Plumbing
import TestHelpers
import Testing

/// `gpsbridge --mqtt` against a real Mosquitto, read by mosquitto_sub: Home Assistant finds the
/// tracker, its state goes not_home → home → not_home on the demo drive, every region event
/// arrives once and in order, also across a broker restart; a refused password is a clear stop.
@Suite(
  .serialized, .timeLimit(.minutes(4)), .enabled(if: Broker.mosquitto != nil && Broker.subscriber != nil, "mosquitto is not installed"))
struct BrokerTests {
  /// The demo drive as a capture, and the bridge on it as "home".
  static func drive(in directory: URL) async throws -> (capture: String, home: String) {
    let capture = directory.appendingPathComponent("drive.nmea").path
    let made = try await runProgram(URL(fileURLWithPath: Gpsbridge.executable), ["simulate", "--output", capture])
    #expect(made.status == 0, "\(made.error)")
    // The drive crosses the bridge 22 s in (Fixtures/demo.regions.json).
    return (capture, "home,47.37588395890962,8.54309417191025,50")
  }

  /// The region and visit events in JSON lines, as `--json` prints them and MQTT carries them.
  static func regionEvents(_ lines: [String]) -> [String] {
    lines.filter {
      $0.contains(#""event":"didEnterRegion""#) || $0.contains(#""event":"didExitRegion""#) || $0.contains(#""event":"didVisit""#)
    }
  }

  static func waitUntilSubscribed(_ subscriber: Subscriber, broker: Broker) async throws {
    let probe = "probe/\(UUID().uuidString.prefix(8))"
    #expect(
      await eventually(timeout: .seconds(20), every: .milliseconds(200)) {
        _ = try? await runProgram(
          URL(fileURLWithPath: installed("mosquitto_pub") ?? "/usr/bin/mosquitto_pub"),
          ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", probe, "-m", "x"])
        return subscriber.received.contains { $0.topic == probe }
      })
  }

  /// A broker of the test's own, and a subscriber to everything on it, already subscribed.
  static func brokerAndSubscriber(in directory: URL) async throws -> (Broker, Subscriber) {
    let broker = try Broker(directory: directory)
    try broker.start()
    let subscriber = try Subscriber(broker: broker)
    try await waitUntilSubscribed(subscriber, broker: broker)
    return (broker, subscriber)
  }

  /// `serve --mqtt` with a u-blox that is spoofed 10 s into its drive: Home Assistant finds the
  /// receiver's interference sensor (a `binary_sensor`, on the tracker's device), which goes
  /// `OFF` then `ON`, retained, with the states as attributes.
  @Test func homeAssistantSeesTheInterferenceSensorGoOnWhenTheReceiverIsSpoofed() async throws {
    let directory = scratchDirectory("mqtt-spoofed-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let (broker, subscriber) = try await Self.brokerAndSubscriber(in: directory)
    defer {
      subscriber.stop()
      broker.stop()
    }
    let capture = directory.appendingPathComponent("spoofed.nmea").path
    let made = try await runProgram(
      URL(fileURLWithPath: Gpsbridge.executable), ["simulate", "--duration", "30", "--spoof", "10", "--output", capture])
    #expect(made.status == 0, "\(made.error)")
    let serve = try RunningProgram(
      [
        "serve", "--replay", capture, "--speed", "2", "--listen", "127.0.0.1:\(FakeGPSD.freePort())", "--mqtt",
        "mqtt://127.0.0.1:\(broker.port)/fleet/box1",
      ], in: directory)
    defer { serve.stop() }
    // At twice real time the attack starts 5 s in: the state before it is published first
    // (at 10 times, a loaded run connected only after it, and the retained state was ON).
    let state = "fleet/box1/spoofed_nmea/interference"
    #expect(
      await subscriber.until(timeout: .seconds(60)) { subscriber.payloads(on: state).prefix(2) == ["OFF", "ON"] },
      "\(subscriber.payloads(on: state)); serve said: \(serve.said)")
    let config = try #require(subscriber.received.first { $0.topic.hasPrefix("homeassistant/binary_sensor/") })
    #expect(config.topic.hasSuffix("_fleet_box1_spoofed_nmea_interference/config"), "\(config.topic)")
    let discovery = try #require(try JSONSerialization.jsonObject(with: Data(config.payload.utf8)) as? [String: Any])
    #expect(discovery["state_topic"] as? String == state && discovery["device_class"] as? String == "problem")
    let attributes = subscriber.payloads(on: state + "/attributes")
    #expect(attributes.contains { $0.contains(#""spoofing":"indicated","spoofingSource":"NAV-STATUS""#) }, "\(attributes)")
    // A newcomer gets the retained state.
    let late = try Subscriber(broker: broker, topic: state)
    defer { late.stop() }
    #expect(await late.until(timeout: .seconds(10)) { late.received.contains { $0.retained && $0.payload == "ON" } })
  }

  @Test func homeAssistantSeesTheTrackerGoHomeAndAwayAndEveryRegionEventOnce() async throws {
    let directory = scratchDirectory("mqtt-drive-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let (broker, subscriber) = try await Self.brokerAndSubscriber(in: directory)
    defer {
      subscriber.stop()
      broker.stop()
    }
    let (capture, home) = try await Self.drive(in: directory)

    let run = try RunningProgram(
      [
        "--replay", capture, "--speed", "20", "--region", home, "--visits", "--visit-dwell", "20", "--json", "--mqtt",
        "mqtt://127.0.0.1:\(broker.port)/fleet/box1", "--mqtt-interval", "2",
      ], in: directory, keepsOutput: true)
    defer { run.stop() }
    #expect(await run.ended(within: .seconds(90)), "\(run.said)")
    #expect(run.exitStatus == 0, "\(run.said)")
    let printed = Self.regionEvents(run.printed.split(separator: "\n").map(String.init))
    #expect(printed.count >= 4, "\(printed)")  // into and out of home, a visit's arrival and departure

    // Every region and visit event, once each and in order, at QoS 1.
    let actions = "fleet/box1/drive_nmea/actions"
    #expect(
      await subscriber.until(timeout: .seconds(20)) { Self.regionEvents(subscriber.payloads(on: actions)) == printed },
      "\(Self.regionEvents(subscriber.payloads(on: actions))) against \(printed)")
    // The tracker's state, as Home Assistant reads it.
    #expect(
      await subscriber.until(timeout: .seconds(20)) {
        subscriber.payloads(on: "fleet/box1/drive_nmea/state") == ["not_home", "home", "not_home"]
      },
      "\(subscriber.payloads(on: "fleet/box1/drive_nmea/state"))")
    #expect(await subscriber.until(timeout: .seconds(20)) { subscriber.payloads(on: "fleet/box1/availability") == ["online", "offline"] })
    // Found by discovery: a retained config naming those topics.
    let config = try #require(subscriber.received.first { $0.topic.hasPrefix("homeassistant/device_tracker/") })
    #expect(config.topic.hasSuffix("_fleet_box1_drive_nmea/config"), "\(config.topic)")
    let discovery = try #require(try JSONSerialization.jsonObject(with: Data(config.payload.utf8)) as? [String: Any])
    #expect(discovery["state_topic"] as? String == "fleet/box1/drive_nmea/state")
    #expect(discovery["json_attributes_topic"] as? String == "fleet/box1/drive_nmea/attributes")
    #expect(discovery["availability_topic"] as? String == "fleet/box1/availability")
    let attributes = try #require(subscriber.payloads(on: "fleet/box1/drive_nmea/attributes").last)
    let fields = try #require(try JSONSerialization.jsonObject(with: Data(attributes.utf8)) as? [String: Double])
    #expect(Set(fields.keys).isSuperset(of: ["latitude", "longitude", "gps_accuracy", "altitude", "speed"]), "\(fields)")
    #expect(abs((fields["latitude"] ?? 0) - 47.37) < 0.1)
    // A newcomer subscribing later still gets the retained state: what it was at the end.
    let late = try Subscriber(broker: broker, topic: "fleet/box1/#")
    defer { late.stop() }
    #expect(await late.until(timeout: .seconds(10)) { late.received.contains { $0.topic == "fleet/box1/drive_nmea/state" } })
    #expect(
      await late.until(timeout: .seconds(10)) { late.received.filter { $0.retained }.map(\.topic).contains("fleet/box1/availability") })
    #expect(run.said.contains("gpsbridge: MQTT: "), "\(run.said)")
  }

  @Test func regionEventsQueuedWhileTheBrokerRestartsArriveInOrderNoneLost() async throws {
    let directory = scratchDirectory("mqtt-restart-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let (broker, subscriber) = try await Self.brokerAndSubscriber(in: directory)
    defer {
      subscriber.stop()
      broker.stop()
    }
    let (capture, home) = try await Self.drive(in: directory)

    let run = try RunningProgram(
      [
        "--replay", capture, "--speed", "5", "--region", home, "--visits", "--visit-dwell", "20", "--json", "--mqtt",
        "mqtt://127.0.0.1:\(broker.port)/fleet/box1",
      ], in: directory, keepsOutput: true)
    defer { run.stop() }
    // The broker goes once the run has begun, and comes back only after the drive entered
    // home: that event waited in gpsbridge's queue.
    #expect(await run.until(timeout: .seconds(30)) { run.printed.contains(#""event":"didUpdateLocations""#) })
    try await offThePool { broker.stop() }
    #expect(await run.until(timeout: .seconds(60)) { run.printed.contains(#""event":"didEnterRegion""#) }, "\(run.said)")
    #expect(await run.until(timeout: .seconds(30)) { run.said.contains("the broker closed the connection") }, "\(run.said)")
    try await offThePool { try broker.start() }
    #expect(await run.ended(within: .seconds(90)), "\(run.said)")
    #expect(run.said.contains("gpsbridge: MQTT mqtt://127.0.0.1:\(broker.port)/fleet/box1: connected again."), "\(run.said)")
    let printed = Self.regionEvents(run.printed.split(separator: "\n").map(String.init))
    let actions = "fleet/box1/drive_nmea/actions"
    #expect(
      await subscriber.until(timeout: .seconds(20)) { Self.regionEvents(subscriber.payloads(on: actions)) == printed },
      "\(Self.regionEvents(subscriber.payloads(on: actions))) against \(printed)\n\(run.said)")
    #expect(await subscriber.until(timeout: .seconds(10)) { subscriber.payloads(on: "fleet/box1/drive_nmea/state").last == "not_home" })
  }

  /// With `--state-dir`, a region event is forgotten only once the broker has it: a run that
  /// ends with the broker away leaves its events unsent (status 1, said), and the next run,
  /// with the broker back, publishes them first, with the ids they had.
  @Test func aRegionEventTheBrokerNeverGotGoesOutAtTheNextStartWithItsID() async throws {
    let directory = scratchDirectory("mqtt-kept-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let (capture, home) = try await Self.drive(in: directory)
    let broker = try Broker(directory: directory)
    defer { broker.stop() }
    let arguments = [
      "--replay", capture, "--speed", "max", "--region", home, "--json", "--state-dir", directory.appendingPathComponent("state").path,
      "--mqtt", "mqtt://127.0.0.1:\(broker.port)/fleet/box1",
    ]

    // The broker away for the whole first run.
    let away = try RunningProgram(arguments, in: directory, keepsOutput: true)
    defer { away.stop() }
    #expect(await away.ended(within: .seconds(90)), "\(away.said)")
    #expect(away.exitStatus == 1 && away.said.contains("never delivered"), "\(away.said)")
    let unsent = Self.regionEvents(away.printed.split(separator: "\n").map(String.init))
    #expect(unsent.count == 2, "\(unsent)")  // into and out of home

    try broker.start()
    let subscriber = try Subscriber(broker: broker)
    defer { subscriber.stop() }
    try await Self.waitUntilSubscribed(subscriber, broker: broker)
    let back = try RunningProgram(arguments, in: directory, keepsOutput: true)
    defer { back.stop() }
    #expect(await back.ended(within: .seconds(90)), "\(back.said)")
    #expect(back.exitStatus == 0, "\(back.said)")
    // The first run's events, the same lines (ids and times), come first; the second run's
    // own (the drive starts again outside home: no new crossing is said of a state kept).
    let published = Self.regionEvents(subscriber.payloads(on: "fleet/box1/drive_nmea/actions"))
    #expect(
      await subscriber.until(timeout: .seconds(20)) {
        Array(Self.regionEvents(subscriber.payloads(on: "fleet/box1/drive_nmea/actions")).prefix(2)) == unsent
      }, "\(published) against \(unsent)")
    // Said again by the second run too, with their ids: a consumer drops them by id.
    let again = Self.regionEvents(back.printed.split(separator: "\n").map(String.init))
    #expect(Array(again.prefix(2)) == unsent, "\(again)")
  }

  @Test func tenThousandRegionsLoseNoCrossingOnTheBroker() async throws {
    let directory = scratchDirectory("mqtt-many-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let (broker, subscriber) = try await Self.brokerAndSubscriber(in: directory)
    defer {
      subscriber.stop()
      broker.stop()
    }
    let (capture, _) = try await Self.drive(in: directory)
    // A 100 by 100 grid of regions 80 m across, 110 m apart, over the drive and far beyond.
    var regions: [String] = []
    for row in 0..<100 {
      for column in 0..<100 {
        let latitude = 47.370 + Double(row) * 0.001
        let longitude = 8.535 + Double(column) * 0.0015
        regions.append(#"{"identifier":"r\#(row)-\#(column)","center":{"latitude":\#(latitude),"longitude":\#(longitude)},"radius":40}"#)
      }
    }
    let file = directory.appendingPathComponent("many.json")
    try Data(("[" + regions.joined(separator: ",") + "]").utf8).write(to: file)
    let run = try RunningProgram(
      ["--replay", capture, "--speed", "max", "--regions", file.path, "--json", "--mqtt", "mqtt://127.0.0.1:\(broker.port)/many"],
      in: directory, keepsOutput: true)
    defer { run.stop() }
    #expect(await run.ended(within: .seconds(120)), "\(run.said)")
    #expect(run.exitStatus == 0, "\(run.said)")
    let printed = run.printed.split(separator: "\n").map(String.init)
    // Every region was taken: its start is printed (a batch of 20,000 actions is never cut).
    #expect(printed.filter { $0.contains(#""event":"didStartMonitoring""#) }.count == 10_000)
    let crossings = Self.regionEvents(printed)
    #expect(crossings.count > 10, "\(crossings.count)")
    // Every crossing reaches the broker, in order, whatever else the queue had to drop.
    #expect(
      await subscriber.until(timeout: .seconds(30)) { Self.regionEvents(subscriber.payloads(on: "many/drive_nmea/actions")) == crossings },
      "\(Self.regionEvents(subscriber.payloads(on: "many/drive_nmea/actions")).count) of \(crossings.count); \(run.said)")
  }

  @Test func aBrokerThatWantsAPasswordRefusesAWrongOneClearly() async throws {
    let directory = scratchDirectory("mqtt-password-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let broker = try Broker(directory: directory, user: ("box", "right"))
    try broker.start()
    defer { broker.stop() }
    let (capture, _) = try await Self.drive(in: directory)
    for (credentials, expected) in [
      ("box:wrong@", "Error: MQTT: the broker 127.0.0.1:\(broker.port) refused the user and password"),
      ("", "Error: MQTT: the broker 127.0.0.1:\(broker.port) wants a user and password: give them as mqtt://USER:PASSWORD@127.0.0.1/p."),
    ] {
      let run = try RunningProgram(
        ["--replay", capture, "--speed", "2", "--mqtt", "mqtt://\(credentials)127.0.0.1:\(broker.port)/p"], in: directory)
      defer { run.stop() }
      #expect(await run.ended(within: .seconds(30)), "\(run.said)")
      #expect(run.exitStatus == 1 && run.said.contains(expected), "\(run.said)")
      #expect(!run.said.contains("wrong") && !run.said.contains("right"))
    }
    // The right one publishes.
    let subscriber = try Subscriber(broker: broker, user: ("box", "right"))
    defer { subscriber.stop() }
    let run = try RunningProgram(
      ["--replay", capture, "--speed", "max", "--mqtt", "mqtt://box:right@127.0.0.1:\(broker.port)/p"], in: directory)
    defer { run.stop() }
    #expect(await subscriber.until(timeout: .seconds(30)) { subscriber.payloads(on: "p/availability").contains("offline") }, "\(run.said)")
  }

  @Test func aBrokerAwayAtTheStartOrSilentIsSaidAndWaitedFor() async throws {
    let directory = scratchDirectory("mqtt-away-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let broker = try Broker(directory: directory)
    let (capture, home) = try await Self.drive(in: directory)
    let run = try RunningProgram(
      ["--replay", capture, "--speed", "10", "--region", home, "--json", "--mqtt", "mqtt://127.0.0.1:\(broker.port)/p"], in: directory,
      keepsOutput: true)
    defer { run.stop() }
    #expect(
      await run.until(timeout: .seconds(20)) {
        run.said.contains("gpsbridge: MQTT mqtt://127.0.0.1:\(broker.port)/p: cannot connect to 127.0.0.1:\(broker.port): ")
      }, "\(run.said)")
    try broker.start()
    defer { broker.stop() }
    let subscriber = try Subscriber(broker: broker)
    defer { subscriber.stop() }
    #expect(await run.ended(within: .seconds(90)), "\(run.said)")
    #expect(run.exitStatus == 0, "\(run.said)")
    // The state it ended in is retained for whoever subscribes.
    #expect(
      await subscriber.until(timeout: .seconds(10)) { subscriber.payloads(on: "p/drive_nmea/state").last == "not_home" },
      "\(subscriber.received)"
    )

    // A listener that never answers CONNECT.
    let silent = try FileDescriptor.listenTCP(host: "127.0.0.1", port: 0)
    defer { try? silent.close() }
    let port = try #require(localPort(silent))
    let waiting = try RunningProgram(["--replay", capture, "--speed", "1", "--mqtt", "mqtt://127.0.0.1:\(port)/p"], in: directory)
    defer { waiting.stop() }
    #expect(
      await waiting.until(timeout: .seconds(30)) {
        waiting.said.contains("the broker did not answer CONNECT in 10 s; connecting again in 1 s.")
      },
      "\(waiting.said)")
  }
}

/// The port a listening socket is bound to.
func localPort(_ socket: FileDescriptor) -> Int? {
  var address = sockaddr_in()
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let status = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket.rawValue, $0, &length) }
  }
  return status == 0 ? Int(UInt16(bigEndian: address.sin_port)) : nil
}
