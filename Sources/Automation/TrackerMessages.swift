import GPSLocation
import Plumbing

/// What one receiver's actions become on MQTT, pure: the Home Assistant device tracker's
/// state (`home`, `not_home` or the region's name), its attributes, and every action as the
/// JSON line `--json` prints on `PREFIX/DEVICE/actions`. Locations (and headings) are sent at
/// most once an `interval`; region entry and exit and visits always, at QoS 1; the tracker's
/// state at QoS 1 when it changes; everything else at QoS 0.
package struct TrackerMessages: Sendable {
  package let topics: TrackerTopics
  package let interval: Duration
  /// Regions the receiver is inside, in the order entered.
  private var inside: [String] = []
  private var state: String?
  private var lastLocation: ContinuousClock.Instant?
  private var lastHeading: ContinuousClock.Instant?
  /// The interference sensor's last state sent, `ON` or `OFF`.
  private var interference: String?

  /// Whether the receiver has said anything of its signals (its sensor is announced then).
  package var saidIntegrity: Bool { interference != nil }

  package init(topics: TrackerTopics, interval: Duration) {
    self.topics = topics
    self.interval = interval
  }

  /// The tracker's state now: `home` inside a region named home (in any case), else the
  /// region entered last, else `not_home`.
  package var trackerState: String {
    if inside.contains(where: { $0.lowercased() == "home" }) { return "home" }
    return inside.last ?? "not_home"
  }

  /// The messages of `action`; of a monitor's `event`, its line carries the fix's time and
  /// the event's id.
  package mutating func messages(
    for action: LocationManager.Action, at now: ContinuousClock.Instant, of event: MonitorEvent? = nil
  ) -> [MQTTClient.Message] {
    var messages: [MQTTClient.Message] = []
    let line = MQTTClient.Message(topic: topics.actions, payload: event.map { action.jsonLine(of: $0) } ?? action.jsonLine, qos: 0)
    switch action {
    case .didUpdateLocations(let locations):
      guard let location = locations.last, lastLocation.map({ $0.duration(to: now) >= interval }) ?? true else { return [] }
      lastLocation = now
      messages.append(line)
      messages.append(MQTTClient.Message(topic: topics.attributes, payload: Self.attributes(location), qos: 0, retain: true))
      // The first location says where the tracker is, inside a region or not.
      if state == nil { messages += stateMessage() }
    case .didUpdateHeading:
      guard lastHeading.map({ $0.duration(to: now) >= interval }) ?? true else { return [] }
      lastHeading = now
      messages.append(line)
    case .didEnterRegion(let region):
      inside.removeAll { $0 == region.identifier }
      inside.append(region.identifier)
      messages.append(Self.atLeastOnce(line))
      messages += stateMessage()
    case .didExitRegion(let region):
      inside.removeAll { $0 == region.identifier }
      messages.append(Self.atLeastOnce(line))
      messages += stateMessage()
    case .didDetermineState(let regionState, let region):
      inside.removeAll { $0 == region.identifier }
      if regionState == .inside { inside.append(region.identifier) }
      messages.append(line)
      if regionState != .unknown { messages += stateMessage() }
    case .didVisit:
      messages.append(Self.atLeastOnce(line))
    case .didChangeSignalIntegrity(let integrity):
      messages.append(Self.atLeastOnce(line))
      messages += interferenceMessages(integrity)
    default:
      messages.append(line)
    }
    return messages
  }

  /// The interference sensor's state (`ON` or `OFF`, when it changed) and attributes, retained.
  private mutating func interferenceMessages(_ integrity: SignalIntegrity) -> [MQTTClient.Message] {
    // A jamming warning (the fix kept) or an open antenna (a passive one always reads so) are
    // in the attributes, not an alarm.
    let alarmed = integrity.isAlarming
    var writer = JSONWriter(capacity: 256)
    writer.beginObject()
    integrity.writeFields(into: &writer)
    writer.endObject()
    var messages = [MQTTClient.Message(topic: topics.interferenceAttributes, payload: writer.string, qos: 1, retain: true)]
    let state = alarmed ? "ON" : "OFF"
    if state != interference {
      interference = state
      messages.append(MQTTClient.Message(topic: topics.interference, payload: state, qos: 1, retain: true))
    }
    return messages
  }

  /// The state, retained, when it changed.
  private mutating func stateMessage() -> [MQTTClient.Message] {
    let now = trackerState
    guard now != state else { return [] }
    state = now
    return [MQTTClient.Message(topic: topics.state, payload: now, qos: 1, retain: true)]
  }

  private static func atLeastOnce(_ message: MQTTClient.Message) -> MQTTClient.Message {
    var message = message
    message.qos = 1
    return message
  }

  /// The attributes Home Assistant's MQTT device tracker reads: `latitude`, `longitude`,
  /// `gps_accuracy`, and `altitude`, `speed` (m/s) and `course` where known.
  static func attributes(_ location: Location) -> String {
    var writer = JSONWriter(capacity: 256)
    writer.beginObject()
    writer.field("latitude", location.coordinate.latitude)
    writer.field("longitude", location.coordinate.longitude)
    if location.horizontalAccuracy >= 0 { writer.field("gps_accuracy", location.horizontalAccuracy) }
    if location.verticalAccuracy >= 0 { writer.field("altitude", location.altitude) }
    if location.speed >= 0 { writer.field("speed", location.speed) }
    if location.course >= 0 { writer.field("course", location.course) }
    writer.endObject()
    return writer.string
  }
}

/// One receiver's topics under the prefix, and its Home Assistant discovery topic.
package struct TrackerTopics: Sendable, Equatable {
  package var prefix: String
  /// The receiver's name in topics: its device path's last part, with only letters, digits,
  /// `_` and `-` (`/dev/ttyACM0` is `ttyACM0`).
  package var device: String

  package init(prefix: String, device: String) {
    self.prefix = prefix
    self.device = Self.topicName(device)
  }

  package var state: String { "\(prefix)/\(device)/state" }
  package var attributes: String { "\(prefix)/\(device)/attributes" }
  package var actions: String { "\(prefix)/\(device)/actions" }
  /// The interference sensor's state, `ON` or `OFF`, and its attributes.
  package var interference: String { "\(prefix)/\(device)/interference" }
  package var interferenceAttributes: String { "\(prefix)/\(device)/interference/attributes" }
  /// The box's availability, `online` or `offline` (the last will), retained.
  package var availability: String { "\(prefix)/availability" }

  package static func topicName(_ device: String) -> String {
    let last = device.split(separator: "/").last.map(String.init) ?? device
    let name = String(last.map { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == "-" ? $0 : "_" })
    return name.isEmpty ? "receiver" : name
  }
}
