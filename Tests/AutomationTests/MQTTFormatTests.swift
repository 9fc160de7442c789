import Foundation
import GPSLocation
import Plumbing
import Testing

@testable import Automation

/// MQTT 3.1.1's packets as the standard lays them out, what a broker sends back read
/// (hostile input too), broker addresses, and what a receiver's actions become.
struct MQTTFormatTests {
  @Test func packetsAreLaidOutAsTheStandardSays() {
    let connect = MQTTPacket.connect(
      .init(
        clientID: "c", keepAlive: 30, user: "u", password: "p",
        will: MQTTPacket.Publish(topic: "t/a", payload: Array("off".utf8), qos: 1, retain: true)))
    // Fixed header, "MQTT" level 4, flags (user, password, will retain, will QoS 1, will,
    // clean session), keepalive 30, then the client id, the will's topic and message, the
    // user and the password.
    #expect(
      connect.bytes
        == [
          0x10, 29, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0xEE, 0, 30, 0, 1, 0x63, 0, 3, 0x74, 0x2F, 0x61, 0, 3, 0x6F, 0x66, 0x66, 0, 1, 0x75, 0,
          1, 0x70,
        ]
    )
    var publish = MQTTPacket.Publish(topic: "a", payload: [1, 2], qos: 1, retain: true)
    publish.packetID = 258
    #expect(MQTTPacket.publish(publish).bytes == [0x33, 7, 0, 1, 0x61, 1, 2, 1, 2])
    #expect(MQTTPacket.disconnect.bytes == [0xE0, 0] && MQTTPacket.pingRequest.bytes == [0xC0, 0])
    // Remaining lengths past 127 take more bytes.
    let long = MQTTPacket.publish(MQTTPacket.Publish(topic: "a", payload: [UInt8](repeating: 0, count: 200))).bytes
    #expect(Array(long.prefix(3)) == [0x30, 0xCB, 0x01] && long.count == 3 + 203)
  }

  @Test func whatABrokerSendsIsReadWholeAndHostileBytesAreRefused() throws {
    #expect(try MQTTPacket.read([0x20, 2, 0, 4][...])?.0 == .connectAcknowledged(sessionPresent: false, returnCode: 4))
    #expect(try MQTTPacket.read([0x40, 2, 1, 2, 0xD0][...])?.0 == .publishAcknowledged(packetID: 258))
    #expect(try MQTTPacket.read([0x40, 2, 1][...]) == nil)  // incomplete: wait
    #expect(try MQTTPacket.read([0xD0, 0][...])?.1 == 2)
    #expect(throws: MQTTPacket.ReadError.badLength) { try MQTTPacket.read([0x40, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F][...]) }
    #expect(throws: MQTTPacket.ReadError.badLength) { try MQTTPacket.read([0x20, 3, 0, 0, 0][...]) }
    #expect(throws: MQTTPacket.ReadError.badLength) { try MQTTPacket.read([0x30, 0x80, 0x80, 0x01][...]) }
    #expect(throws: MQTTPacket.ReadError.unexpected(0x30)) { try MQTTPacket.read([0x30, 3, 0, 1, 0x61][...]) }
    // Any bytes at all: an answer, a wait, or a refusal; never a crash.
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<10_000 {
      let bytes = (0..<Int.random(in: 0...8, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
      _ = try? MQTTPacket.read(bytes[...])
    }
  }

  @Test func anAddressNeverSaysItsPasswordAndRefusesWildcards() throws {
    let address = try MQTTAddress(parsing: "mqtt://box:s%40cret@broker.lan:1884/home/boat")
    #expect(address.host == "broker.lan" && address.port == 1884 && address.prefix == "home/boat")
    #expect(address.user == "box" && address.password == "s@cret")
    #expect(address.description == "mqtt://broker.lan:1884/home/boat")
    #expect(try MQTTAddress(parsing: "mqtt://localhost/gpsbridge").port == 1883)
    #expect(throws: MQTTAddress.ParseError.wildcard("fleet/+")) { try MQTTAddress(parsing: "mqtt://localhost/fleet/+") }
    #expect(throws: MQTTAddress.ParseError.wildcard("#")) { try MQTTAddress(parsing: "mqtt://localhost/#") }
    #expect(throws: MQTTAddress.ParseError.emptyPrefix) { try MQTTAddress(parsing: "mqtt://localhost") }
    #expect(throws: MQTTAddress.ParseError.emptyPrefix) { try MQTTAddress(parsing: "mqtt://localhost/a//b") }
    #expect(throws: MQTTAddress.ParseError.badPort) { try MQTTAddress(parsing: "mqtt://localhost:99999/a") }
    #expect(throws: MQTTAddress.ParseError.notMQTT) { try MQTTAddress(parsing: "http://localhost/a") }
    // TLS is said as such, with what to do instead.
    #expect(throws: MQTTAddress.ParseError.tls) { try MQTTAddress(parsing: "mqtts://broker.example.org:8883/a") }
    #expect(MQTTAddress.ParseError.tls.description.contains("mqtt://localhost/PREFIX"))
  }

  @Test func aFullQueueDropsLocationsFirstAndSaysSoOnce() throws {
    var configuration = MQTTClient.Configuration(address: try MQTTAddress(parsing: "mqtt://127.0.0.1:1/p"), clientID: "c")
    configuration.queueLimit = 3
    let said = Locked<[String]>([])
    let client = MQTTClient(configuration, said: { message in said.withLock { $0.append(message) } })
    func message(_ name: String, qos: UInt8) -> MQTTClient.Message { MQTTClient.Message(topic: name, payload: "", qos: qos) }
    client.publish(message("location 1", qos: 0))
    client.publish(message("entered", qos: 1))
    client.publish(message("location 2", qos: 0))
    client.publish(message("exited", qos: 1))  // the oldest location makes room
    client.publish(message("visit", qos: 1))  // and the next
    client.publish(message("location 3", qos: 0))  // no location left to drop: this one goes
    client.publish(message("state", qos: 1))  // only QoS 1 waits: the oldest goes
    #expect(client.waiting.map(\.topic) == ["exited", "visit", "state"])
    #expect(client.statistics.dropped == 4)
    #expect(said.withLock { $0 }.count == 1, "\(said.withLock { $0 })")
  }

  static let home = Region(identifier: "Home", center: LocationCoordinate2D(latitude: 47.3, longitude: 8.5), radius: 50)
  static let marina = Region(identifier: "marina", center: LocationCoordinate2D(latitude: 47.4, longitude: 8.6), radius: 100)

  static func location(_ latitude: Double) -> Location {
    Location(
      coordinate: LocationCoordinate2D(latitude: latitude, longitude: 8.5), altitude: 410, horizontalAccuracy: 4, verticalAccuracy: 6,
      speed: 3, course: 90,
      timestamp: Date(timeIntervalSince1970: 1_764_000_000))
  }

  @Test func theTrackerIsHomeAwayOrInTheRegionAndLocationsAreRateLimited() {
    var tracker = TrackerMessages(topics: TrackerTopics(prefix: "p", device: "/dev/ttyACM0"), interval: .seconds(10))
    let start = ContinuousClock.now
    func states(_ action: LocationManager.Action, after seconds: Int) -> [MQTTClient.Message] {
      tracker.messages(for: action, at: start.advanced(by: .seconds(seconds)))
    }
    let first = states(.didUpdateLocations([Self.location(47.0)]), after: 0)
    #expect(first.map(\.topic) == ["p/ttyACM0/actions", "p/ttyACM0/attributes", "p/ttyACM0/state"])
    #expect(first.last?.payload == Array("not_home".utf8) && first.last?.retain == true && first.last?.qos == 1)
    let attributes = try? JSONSerialization.jsonObject(with: Data(first[1].payload)) as? [String: Double]
    #expect(attributes == ["latitude": 47.0, "longitude": 8.5, "gps_accuracy": 4, "altitude": 410, "speed": 3, "course": 90])
    // Within the interval, locations wait; region events never do, and go at QoS 1.
    #expect(states(.didUpdateLocations([Self.location(47.1)]), after: 5).isEmpty)
    let entered = states(.didEnterRegion(Self.marina), after: 6)
    #expect(entered.map(\.topic) == ["p/ttyACM0/actions", "p/ttyACM0/state"] && entered.allSatisfy { $0.qos == 1 })
    #expect(entered.last?.payload == Array("marina".utf8))
    #expect(states(.didEnterRegion(Self.home), after: 7).last?.payload == Array("home".utf8))
    // Still in the marina too: leaving home makes it the marina again, then away.
    #expect(states(.didExitRegion(Self.home), after: 8).last?.payload == Array("marina".utf8))
    #expect(states(.didExitRegion(Self.marina), after: 9).last?.payload == Array("not_home".utf8))
    #expect(states(.didUpdateLocations([Self.location(47.2)]), after: 10).map(\.topic) == ["p/ttyACM0/actions", "p/ttyACM0/attributes"])
  }

  @Test func homeAssistantDiscoversATrackerOnTheTopics() throws {
    let discovery = HomeAssistantDiscovery(
      topics: TrackerTopics(prefix: "fleet/van 1", device: "/dev/serial/by-id/usb-u-blox"), node: "box.lan", version: "1.0")
    #expect(discovery.topic == "homeassistant/device_tracker/gpsbridge_box_lan_fleet_van_1_usb-u-blox/config")
    let config = try #require(try JSONSerialization.jsonObject(with: Data(discovery.message.payload)) as? [String: Any])
    #expect(config["state_topic"] as? String == "fleet/van 1/usb-u-blox/state")
    #expect(config["json_attributes_topic"] as? String == "fleet/van 1/usb-u-blox/attributes")
    #expect(config["availability_topic"] as? String == "fleet/van 1/availability")
    #expect(config["source_type"] as? String == "gps" && config["payload_not_home"] as? String == "not_home")
    #expect(discovery.message.retain && discovery.message.qos == 1)
  }

  /// A u-blox's word on its signals: MON-HW (antenna, jamming) and NAV-STATUS (spoofing).
  static func integrity(spoofing: Int, jamming: Int = 1) -> SignalIntegrity {
    var hardware = [UInt8](repeating: 0, count: 60)
    (hardware[20], hardware[21], hardware[22], hardware[45]) = (2, 1, UInt8(jamming << 2), 10)
    var status = [UInt8](repeating: 0, count: 16)
    status[7] = UInt8(spoofing << 3)
    var integrity = SignalIntegrity()
    _ = integrity.take(UBXFrame(messageClass: 0x0A, id: 0x09, payload: hardware))
    _ = integrity.take(UBXFrame(messageClass: 0x01, id: 0x03, payload: status))
    return integrity
  }

  /// The interference `binary_sensor`: `OFF` when the receiver first says all is well, `ON`
  /// while it says it is spoofed or jammed, each state sent once and retained, the states as
  /// attributes every time.
  @Test func theInterferenceSensorIsOnWhileTheReceiverSaysSo() throws {
    var tracker = TrackerMessages(topics: TrackerTopics(prefix: "p", device: "/dev/ttyACM0"), interval: .seconds(10))
    let now = ContinuousClock.now
    let clean = tracker.messages(for: .didChangeSignalIntegrity(Self.integrity(spoofing: 1)), at: now)
    #expect(clean.map(\.topic) == ["p/ttyACM0/actions", "p/ttyACM0/interference/attributes", "p/ttyACM0/interference"])
    #expect(clean.last?.payload == Array("OFF".utf8) && clean.last?.retain == true && clean.last?.qos == 1)
    let attributes = try #require(try JSONSerialization.jsonObject(with: Data(clean[1].payload)) as? [String: Any])
    #expect(attributes["spoofing"] as? String == "none" && attributes["jamming"] as? String == "ok" && attributes["jam"] as? Int == 10)
    let spoofed = tracker.messages(for: .didChangeSignalIntegrity(Self.integrity(spoofing: 2)), at: now)
    #expect(spoofed.last?.topic == "p/ttyACM0/interference" && spoofed.last?.payload == Array("ON".utf8))
    // Affirmed after indicated: the attributes change, the sensor stays on and is not sent again.
    let affirmed = tracker.messages(for: .didChangeSignalIntegrity(Self.integrity(spoofing: 3)), at: now)
    #expect(affirmed.map(\.topic) == ["p/ttyACM0/actions", "p/ttyACM0/interference/attributes"])
    let jammed = tracker.messages(for: .didChangeSignalIntegrity(Self.integrity(spoofing: 1, jamming: 3)), at: now)
    // Jammed, no longer spoofed: still on, not sent again; the attributes say which.
    #expect(jammed.count == 2 && String(decoding: jammed[1].payload, as: UTF8.self).contains(#""jamming":"critical""#))
    #expect(tracker.messages(for: .didChangeSignalIntegrity(Self.integrity(spoofing: 1)), at: now).last?.payload == Array("OFF".utf8))
  }

  @Test func homeAssistantDiscoversTheInterferenceSensorOnTheTrackersDevice() throws {
    let discovery = HomeAssistantDiscovery(topics: TrackerTopics(prefix: "gpsbridge", device: "/dev/ttyACM0"), node: "box", version: "1.0")
    let message = discovery.interference
    #expect(message.topic == "homeassistant/binary_sensor/gpsbridge_box_gpsbridge_ttyACM0_interference/config")
    let config = try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
    #expect(config["device_class"] as? String == "problem" && config["state_topic"] as? String == "gpsbridge/ttyACM0/interference")
    #expect(config["payload_on"] as? String == "ON" && config["payload_off"] as? String == "OFF")
    let device = try #require(config["device"] as? [String: Any])
    #expect(device["identifiers"] as? [String] == [discovery.objectID], "the same device as the tracker")
    #expect(message.retain && message.qos == 1)
  }

  /// A region event of a monitor carries the fix's time and the event's id, on MQTT and in
  /// gpsd's stream.
  @Test func aMonitorsRegionEventSaysItsTimeAndID() throws {
    var tracker = TrackerMessages(topics: TrackerTopics(prefix: "p", device: "/dev/ttyACM0"), interval: .seconds(10))
    let home = Region(identifier: "home", center: LocationCoordinate2D(latitude: 47, longitude: 8), radius: 50)
    let event = MonitorEvent(
      id: 7, identifier: "home", state: .satisfied, previousState: .unsatisfied, date: Date(timeIntervalSince1970: 1_714_550_433),
      detectedAtStart: true)
    let actions = event.actions(for: home)
    #expect(actions == [.didEnterRegion(home), .didDetermineState(.inside, region: home)])
    let lines = actions.flatMap { tracker.messages(for: $0, at: .now, of: event) }.filter { $0.topic == tracker.topics.actions }
    #expect(
      lines.first.map { String(decoding: $0.payload, as: UTF8.self) }?.hasSuffix(
        #","time":"2024-05-01T08:00:33.000Z","id":7,"detectedAtStart":true}"#) == true)
    let report = try #require(actions[0].gpsdReport(device: "/dev/ttyACM0", of: event))
    #expect(report.hasPrefix(#"{"class":"REGION","device":"/dev/ttyACM0","event":"didEnterRegion""#))
    #expect(report.hasSuffix(#","time":"2024-05-01T08:00:33.000Z","id":7,"detectedAtStart":true}"#))
  }
}
