import GPSLocation
import Plumbing

/// A box's receivers on MQTT, for Home Assistant and for fleets: give it each receiver's
/// location manager actions (``take(_:device:)``) and run it (``run()``).
///
/// For each receiver it publishes a Home Assistant `device_tracker` (discovery, retained), the
/// tracker's state (`home`, `not_home` or the region's name) and attributes, and every action
/// as the JSON line `--json` prints, on `PREFIX/DEVICE/actions`. Locations go at most once an
/// ``Configuration/interval``, at QoS 0; region and visit events always, at QoS 1. The box's
/// availability (`PREFIX/availability`) is `online` while connected and `offline` when it
/// stops or dies (the last will).
public final class MQTTPublisher: Sendable {
  public struct Configuration: Sendable {
    public var address: MQTTAddress
    /// The shortest time between two locations sent for a receiver.
    public var interval: Duration = .seconds(10)
    /// The box's name in Home Assistant (its host name by default).
    public var node: String = hostName()
    /// The most messages waiting while the broker is away.
    public var queueLimit = 10_000

    public init(address: MQTTAddress, interval: Duration = .seconds(10)) {
      self.address = address
      self.interval = interval
    }
  }

  public let configuration: Configuration
  public let client: MQTTClient
  private let trackers = Locked([String: TrackerMessages]())

  public init(_ configuration: Configuration, said: @escaping @Sendable (String) -> Void = { _ in }) {
    self.configuration = configuration
    let availability = TrackerTopics(prefix: configuration.address.prefix, device: "").availability
    var client = MQTTClient.Configuration(
      address: configuration.address, clientID: "gpsbridge-\(TrackerTopics.topicName(configuration.node))-\(getpid())")
    client.will = MQTTClient.Message(topic: availability, payload: "offline", qos: 1, retain: true)
    client.birth = [MQTTClient.Message(topic: availability, payload: "online", qos: 1, retain: true)]
    client.farewell = [MQTTClient.Message(topic: availability, payload: "offline", qos: 1, retain: true)]
    client.queueLimit = configuration.queueLimit
    self.client = MQTTClient(client, said: said)
  }

  /// Publishes what `actions` of the receiver named `device` say (its path, as `?DEVICES`
  /// shows it). Returns at once.
  public func take(_ actions: [LocationManager.Action], device: String) {
    take(actions, device: device, at: .now)
  }

  /// ``take(_:device:)`` for the actions of a monitor's `event`: their lines on the actions
  /// topic carry the fix's `"time"` and the event's `"id"`.
  public func take(_ actions: [LocationManager.Action], device: String, of event: MonitorEvent?) {
    take(actions, device: device, at: .now, of: event)
  }

  /// ``take(_:device:of:)``, calling `whenHandled` once every message of the event is out
  /// of the publisher's hands: acknowledged by the broker (QoS 1), written (QoS 0) or dropped
  /// from a full queue; never for one still waiting when the publisher stops.
  public func take(
    _ actions: [LocationManager.Action], device: String, of event: MonitorEvent, whenHandled: @escaping @Sendable () -> Void
  ) {
    let handled = Countdown(1, then: whenHandled)
    take(actions, device: device, at: .now, of: event, handled: handled)
    handled.done()
  }

  package func take(
    _ actions: [LocationManager.Action], device: String, at now: ContinuousClock.Instant, of event: MonitorEvent? = nil,
    handled: Countdown? = nil
  ) {
    let messages: [MQTTClient.Message] = trackers.withLock { trackers in
      var messages: [MQTTClient.Message] = []
      var tracker =
        trackers[device]
        ?? {
          let topics = TrackerTopics(prefix: configuration.address.prefix, device: device)
          messages.append(HomeAssistantDiscovery(topics: topics, node: configuration.node, version: GPSBridge.version).message)
          return TrackerMessages(topics: topics, interval: configuration.interval)
        }()
      for action in actions {
        // The interference sensor is announced when the receiver first says anything of it.
        if case .didChangeSignalIntegrity = action, !tracker.saidIntegrity {
          messages.append(
            HomeAssistantDiscovery(topics: tracker.topics, node: configuration.node, version: GPSBridge.version).interference)
        }
        messages += tracker.messages(for: action, at: now, of: event)
      }
      trackers[device] = tracker
      return messages
    }
    handled?.add(messages.count)
    for var message in messages {
      message.handled = handled
      client.publish(message)
    }
  }

  /// Publishes until the task is cancelled; then says `offline` and disconnects cleanly.
  /// - Throws: ``MQTTClient/Failure`` when the broker refuses the user or password.
  public func run() async throws(MQTTClient.Failure) {
    try await client.run()
  }
}

/// This machine's host name.
public func hostName() -> String {
  var buffer = [CChar](repeating: 0, count: 256)
  guard gethostname(&buffer, buffer.count) == 0 else { return "gpsbridge" }
  return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
