import Plumbing

/// An MQTT 3.1.1 publisher, written by hand (the project takes no package dependencies): it
/// connects with a keepalive and a last will, publishes at QoS 0 or 1 (a QoS 1 message stays
/// queued until the broker acknowledges it, and goes again after a reconnect), keeps what it
/// retained so a restarted broker gets it back, connects again with backoff, and ends with a
/// clean DISCONNECT.
///
/// ``publish(_:)`` never blocks: messages wait in a bounded queue while the broker is away;
/// when it is full the oldest QoS 0 message goes first (else the oldest), counted and said.
/// A broker that refuses the user or password is a clear stop. The broker is spoken to through
/// a ``ClientConnection`` (Dispatch sources and timers: no thread waits for it); its password
/// is never said.
public final class MQTTClient: Sendable {
  public struct Configuration: Sendable {
    public var address: MQTTAddress
    /// The client identifier the broker knows this connection by (unique per broker).
    public var clientID: String
    /// The most seconds between packets; the broker takes a silent client for dead after 1.5×.
    public var keepAlive: Duration = .seconds(30)
    /// Published by the broker when the connection dies without a DISCONNECT (availability
    /// `offline`, retained).
    public var will: Message?
    /// Published on every connection before the queue (availability `online`).
    public var birth: [Message] = []
    /// Published after the queue when the client stops cleanly, before DISCONNECT
    /// (availability `offline`: a clean end sends no will).
    public var farewell: [Message] = []
    /// The most messages waiting (queued and unacknowledged): some 3 MB of JSON lines.
    public var queueLimit = 10_000
    /// How long the broker has to answer CONNECT.
    public var connectTimeout: Duration = .seconds(10)
    /// The longest wait between attempts.
    public var longestBackoff: Duration = .seconds(60)
    /// How long the broker has to acknowledge a QoS 1 message: one that keeps the connection
    /// (answers pings) but acknowledges nothing would otherwise stop all publishing once a
    /// few are in flight. Past it, the connection is taken for dead and made again, and the
    /// messages go again.
    public var acknowledgementTimeout: Duration = .seconds(30)

    public init(address: MQTTAddress, clientID: String) {
      self.address = address
      self.clientID = clientID
    }
  }

  /// One message to publish.
  public struct Message: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    /// 0 (at most once) or 1 (at least once, acknowledged).
    public var qos: UInt8
    public var retain: Bool
    /// Told when the message is out of the client's hands: acknowledged (QoS 1), written
    /// (QoS 0), or dropped from a full queue; not when it is left unsent at the end.
    package var handled: Countdown?

    public init(topic: String, payload: String, qos: UInt8 = 0, retain: Bool = false) {
      self.topic = topic
      self.payload = Array(payload.utf8)
      self.qos = min(qos, 1)
      self.retain = retain
    }
  }

  /// Why the client stopped for good.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    public var description: String
  }

  /// What the client has done so far.
  public struct Statistics: Sendable, Equatable {
    public var connected = false
    /// Messages waiting: queued, or sent at QoS 1 and not yet acknowledged.
    public var queued = 0
    /// The most that were waiting at once.
    public var mostQueued = 0
    public var published = 0
    /// QoS 1 messages the broker acknowledged.
    public var acknowledged = 0
    /// Messages dropped because the queue was full.
    public var dropped = 0
    public var connections = 0
    /// "connecting", "connected", "broker away: connecting again in 4 s"…
    public var state = "starting"
  }

  public let configuration: Configuration
  private let said: @Sendable (String) -> Void
  private let shared = Locked(Shared())

  private struct Shared {
    var statistics = Statistics()
    var queue: [Message] = []
    var stopped = false
    var saidFull = false
    /// The latest retained message of each topic that went out, for a broker that restarts.
    var retained: [String: Message] = [:]
    var retainedOrder: [String] = []
    /// The connection now, woken when a message is queued or the client is to stop.
    var connection: ClientConnection?
  }

  public init(_ configuration: Configuration, said: @escaping @Sendable (String) -> Void = { _ in }) {
    self.configuration = configuration
    self.said = said
  }

  public var statistics: Statistics { shared.withLock { $0.statistics } }

  /// The messages waiting to be sent, oldest first.
  package var waiting: [Message] { shared.withLock { $0.queue } }

  /// Queues `message`; returns at once.
  public func publish(_ message: Message) {
    // The one dropped to make room, told outside the lock.
    var dropped: Message?
    defer { dropped?.handled?.done() }
    let full: Int? = shared.withLock { shared in
      var full: Int?
      if shared.queue.count >= configuration.queueLimit {
        shared.statistics.dropped += 1
        if !shared.saidFull {
          shared.saidFull = true
          full = configuration.queueLimit
        }
        // The oldest QoS 0 message makes room; with none, a QoS 0 newcomer is the one dropped,
        // and only a QoS 1 one takes the oldest's place.
        if let oldest = shared.queue.firstIndex(where: { $0.qos == 0 }) {
          dropped = shared.queue.remove(at: oldest)
        } else if message.qos == 0 {
          dropped = message
          return full
        } else {
          dropped = shared.queue.removeFirst()
        }
      }
      shared.queue.append(message)
      shared.statistics.queued = shared.queue.count
      shared.statistics.mostQueued = max(shared.statistics.mostQueued, shared.queue.count)
      return full
    }
    if let full {
      said(
        "gpsbridge: MQTT: \(full) messages wait for \(configuration.address) already: dropping the oldest (locations first) until it takes them."
      )
    }
    signal()
  }

  /// Wakes the session waiting for the broker: there is something to do.
  private func signal() {
    shared.withLock { $0.connection }?.wake()
  }

  /// Publishes until the task is cancelled, then sends what is queued (5 s at most) and
  /// disconnects cleanly, so the broker does not publish the will.
  /// - Throws: ``Failure`` when the broker refuses the user or password, or this client.
  public func run() async throws(Failure) {
    let outcome: Result<Void, Failure> = await withTaskCancellationHandler {
      do throws(Failure) {
        try await loop()
        return .success(())
      } catch {
        return .failure(error)
      }
    } onCancel: {
      shared.withLock { $0.stopped = true }
      signal()
    }
    try outcome.get()
  }

  private var isStopped: Bool { shared.withLock { $0.stopped } }

  private func setState(_ state: String, connected: Bool? = nil) {
    shared.withLock { shared in
      shared.statistics.state = state
      if let connected { shared.statistics.connected = connected }
    }
  }

  /// Sessions, one after another, with backoff, until stopped.
  private func loop() async throws(Failure) {
    var policy = ReconnectPolicy(longest: configuration.longestBackoff)
    while true {
      let ending: SessionEnd
      do {
        ending = try await session()
      } catch {
        setState("stopped: \(error)", connected: false)
        throw error
      }
      if isStopped { return }
      let (backoff, say) = policy.ended(reason: ending.reason, worked: ending.connected)
      let message = "\(ending.reason); connecting again in \(seconds(backoff)) s"
      if say { said("gpsbridge: MQTT \(configuration.address): \(message).") }
      setState(message, connected: false)
      guard await sleepUnlessCancelled(backoff), !isStopped else { return }
    }
  }

  private struct SessionEnd {
    var reason: String
    var connected: Bool
  }

  private func session() async throws(Failure) -> SessionEnd {
    let address = configuration.address
    setState("connecting")
    let connection: ClientConnection
    do {
      // A region event goes the moment it is known, not 40 ms later behind the one before.
      connection = try await ClientConnection.connect(host: address.host, port: address.port, noDelay: true, label: "gpsbridge.mqtt")
    } catch {
      switch error {
      case .unknownHost: return SessionEnd(reason: "the host name \(address.host) does not resolve", connected: false)
      case .lookupUnanswered: return SessionEnd(reason: "no name server answered for \(address.host)", connected: false)
      case .system(let errno): return SessionEnd(reason: "cannot connect to \(address.host):\(address.port): \(errno)", connected: false)
      }
    }
    shared.withLock { $0.connection = connection }
    if isStopped { connection.wake() }
    // Closed whichever way the session ends, a refusal too.
    let ending: Result<SessionEnd, Failure>
    do {
      ending = .success(try await session(on: connection))
    } catch {
      ending = .failure(error)
    }
    shared.withLock { $0.connection = nil }
    await connection.close()
    return try ending.get()
  }

  /// One connected session: CONNECT, then the queue, until the broker goes or the client stops.
  private func session(on connection: ClientConnection) async throws(Failure) -> SessionEnd {
    let address = configuration.address
    var reader = PacketReader()
    let keepAlive = UInt16(clamping: configuration.keepAlive.components.seconds)
    let connect = MQTTPacket.Connect(
      clientID: configuration.clientID, keepAlive: keepAlive, user: address.user, password: address.password,
      will: configuration.will.map(Self.packet))
    guard await connection.send(MQTTPacket.connect(connect).bytes) else {
      return SessionEnd(reason: "the broker closed the connection at once", connected: false)
    }
    // CONNACK, within the connect timeout.
    let deadline = ContinuousClock.now.advanced(by: configuration.connectTimeout)
    var answer: MQTTPacket?
    while answer == nil {
      if isStopped { return SessionEnd(reason: "stopped", connected: false) }
      let left = ContinuousClock.now.duration(to: deadline)
      guard left > .zero else {
        return SessionEnd(reason: "the broker did not answer CONNECT in \(seconds(configuration.connectTimeout)) s", connected: false)
      }
      switch await reader.receive(from: connection, within: left) {
      case .closed: return SessionEnd(reason: "the broker closed the connection without answering CONNECT", connected: false)
      case .broken(let why): return SessionEnd(reason: "the broker's answer is not MQTT (\(why))", connected: false)
      case .packets(let packets): answer = packets.first
      case .nothing: continue
      }
    }
    guard case .connectAcknowledged(_, let code) = answer else {
      return SessionEnd(reason: "the broker's answer to CONNECT is not CONNACK", connected: false)
    }
    switch code {
    case 0: break
    case 4, 5:
      // (Mosquitto 2 answers a bad password with 5, "not authorized", as well as 4.)
      throw Failure(
        description: address.user == nil
          ? "the broker \(address.host):\(address.port) wants a user and password: give them as mqtt://USER:PASSWORD@\(address.host)/\(address.prefix)."
          : "the broker \(address.host):\(address.port) refused the user and password\(code == 5 ? " (or does not authorize this client)" : "")."
      )
    case 2:
      throw Failure(description: "the broker \(address.host):\(address.port) refused the client identifier '\(configuration.clientID)'.")
    case 1: throw Failure(description: "the broker \(address.host):\(address.port) does not speak MQTT 3.1.1.")
    default: return SessionEnd(reason: "the broker is unavailable (CONNACK \(code))", connected: false)
    }
    let retainedAgain = shared.withLock { shared in
      shared.statistics.connections += 1
      return shared.retainedOrder.compactMap { shared.retained[$0] }
    }
    setState("connected", connected: true)
    if shared.withLock({ $0.statistics.connections }) > 1 { said("gpsbridge: MQTT \(address): connected again.") }

    // What a restarted broker may have lost (birth first), then the queue.
    var nextID: UInt16 = 1
    var unacknowledged: [(id: UInt16, message: Message, sent: ContinuousClock.Instant)] = []
    for message in configuration.birth + retainedAgain.filter({ retained in !configuration.birth.contains { $0.topic == retained.topic } })
    {
      guard await connection.send(Self.packet(message).bytesWith(id: nil)) else {
        return SessionEnd(reason: "the broker closed the connection", connected: true)
      }
    }
    var lastSent = ContinuousClock.now
    var pingSent: ContinuousClock.Instant?
    var stopping: ContinuousClock.Instant?
    let keepAliveInterval = configuration.keepAlive
    while true {
      if isStopped {
        // A clean end: what is queued goes, and is acknowledged (5 s at most), then the
        // farewell and DISCONNECT.
        let end = stopping ?? ContinuousClock.now.advanced(by: .seconds(5))
        stopping = end
        let drained = unacknowledged.isEmpty && shared.withLock { $0.queue.isEmpty }
        if drained || ContinuousClock.now >= end {
          for message in configuration.farewell { _ = await connection.send(Self.packet(message).bytesWith(id: nil)) }
          _ = await connection.send(MQTTPacket.disconnect.bytes)
          return SessionEnd(reason: "stopped", connected: true)
        }
      }
      // Send what waits, at most a few in flight at QoS 1 so their order holds. Each is taken
      // off the queue before it is sent: a full queue making room meanwhile drops another.
      while unacknowledged.count < 16, let message = takeFirst() {
        let id: UInt16? = message.qos > 0 ? nextID : nil
        if let id {
          nextID = nextID == .max ? 1 : nextID + 1
          unacknowledged.append((id, message, .now))
        }
        guard await connection.send(Self.packet(message).bytesWith(id: id)) else {
          if id != nil { unacknowledged.removeLast() }
          requeue(unacknowledged.map(\.message), before: message)
          return SessionEnd(reason: "the broker closed the connection", connected: true)
        }
        lastSent = .now
        if id == nil { message.handled?.done() }
        shared.withLock { shared in
          shared.statistics.published += 1
          shared.statistics.queued = shared.queue.count + unacknowledged.count
          if message.retain {
            var kept = message
            kept.handled = nil
            if shared.retained.updateValue(kept, forKey: message.topic) == nil { shared.retainedOrder.append(message.topic) }
          }
        }
      }
      // A broker that acknowledges nothing in time is no broker: all publishing would stop.
      if let oldest = unacknowledged.first, oldest.sent.duration(to: .now) > configuration.acknowledgementTimeout {
        requeue(unacknowledged.map(\.message))
        let seconds = configuration.acknowledgementTimeout.components.seconds
        return SessionEnd(reason: "the broker did not acknowledge a message in \(seconds) s", connected: true)
      }
      // Keep the connection alive, and take a missing PINGRESP for a dead broker.
      if let pingSent, pingSent.duration(to: .now) > keepAliveInterval {
        requeue(unacknowledged.map(\.message))
        return SessionEnd(reason: "the broker stopped answering", connected: true)
      }
      if pingSent == nil, lastSent.duration(to: .now) >= keepAliveInterval / 2 {
        guard await connection.send(MQTTPacket.pingRequest.bytes) else {
          requeue(unacknowledged.map(\.message))
          return SessionEnd(reason: "the broker closed the connection", connected: true)
        }
        pingSent = .now
        lastSent = .now
      }
      switch await reader.receive(from: connection, within: .milliseconds(500)) {
      case .nothing: continue
      case .closed:
        requeue(unacknowledged.map(\.message))
        return SessionEnd(reason: "the broker closed the connection", connected: true)
      case .broken(let why):
        requeue(unacknowledged.map(\.message))
        return SessionEnd(reason: "the broker sent what is not MQTT (\(why))", connected: true)
      case .packets(let packets):
        for packet in packets {
          switch packet {
          case .publishAcknowledged(let id):
            if let index = unacknowledged.firstIndex(where: { $0.id == id }) {
              let acknowledged = unacknowledged.remove(at: index).message
              shared.withLock { shared in
                shared.statistics.acknowledged += 1
                shared.statistics.queued = shared.queue.count + unacknowledged.count
              }
              acknowledged.handled?.done()
            }
          case .pingResponse: pingSent = nil
          default: break
          }
        }
      }
    }
  }

  /// Puts unacknowledged messages back at the front of the queue, in their order, to go again.
  /// `unpublished`, taken off the queue but not sent, goes back after them.
  private func requeue(_ messages: [Message], before unpublished: Message? = nil) {
    guard !messages.isEmpty || unpublished != nil else { return }
    shared.withLock { shared in
      shared.queue.insert(contentsOf: messages + (unpublished.map { [$0] } ?? []), at: 0)
      shared.statistics.published -= messages.count
      shared.statistics.queued = shared.queue.count
    }
  }

  /// The first message waiting, taken off the queue (still counted as waiting until sent).
  private func takeFirst() -> Message? {
    shared.withLock { shared in
      guard !shared.queue.isEmpty else { return nil }
      return shared.queue.removeFirst()
    }
  }

  private static func packet(_ message: Message) -> MQTTPacket.Publish {
    MQTTPacket.Publish(topic: message.topic, payload: message.payload, qos: message.qos, retain: message.retain)
  }
}

extension MQTTPacket.Publish {
  /// The PUBLISH packet, with `id` when it is QoS 1; without one, it goes at QoS 0.
  func bytesWith(id: UInt16?) -> [UInt8] {
    var publish = self
    publish.packetID = id
    if id == nil { publish.qos = 0 }
    return MQTTPacket.publish(publish).bytes
  }
}

private func seconds(_ duration: Duration) -> String {
  let (whole, attoseconds) = duration.components
  return attoseconds == 0 ? String(whole) : String(Double(whole) + Double(attoseconds) / 1e18)
}
