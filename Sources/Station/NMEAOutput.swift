import Dispatch
import GPSD
import NMEA
import NMEASimulation
import Plumbing
import Transports

/// A receiver's NMEA 0183 over the network, the way marine software reads it (OpenCPN,
/// plotters, another gpsd, on IANA's port 10110): to TCP clients that connect, and as UDP
/// datagrams to an address (a broadcast one when allowed). This replaces the kplex or socat
/// glue boats run beside gpsd.
///
/// A real receiver's sentences go out as it sent them; a virtual receiver's (`best`), or one
/// that speaks UBX only, are written from its fixes (``FixSentences``: GGA, RMC, GSA, GSV, VTG,
/// ZDA), so that two receivers' sentences never mix in one epoch. Each TCP client has a queue
/// of its own, bounded as the gpsd port's are: one that stops reading is closed without
/// holding up the others; what clients send is read and thrown away.
public final class NMEAOutput: @unchecked Sendable {
  public struct Configuration: Sendable, Equatable {
    /// Where TCP clients connect, if anywhere.
    public var tcp: GPSDAddress?
    /// Where datagrams go, if anywhere.
    public var udp: GPSDAddress?
    /// Whether the datagrams may go to a broadcast address.
    public var broadcast: Bool
    /// The most TCP clients at once.
    public var maximumClients: Int
    /// Bytes queued for a client before it is taken to have stopped reading.
    public var queueLimit: Int

    public init(
      tcp: GPSDAddress? = nil, udp: GPSDAddress? = nil, broadcast: Bool = false, maximumClients: Int = 64, queueLimit: Int = 262_144
    ) {
      self.tcp = tcp
      self.udp = udp
      self.broadcast = broadcast
      self.maximumClients = maximumClients
      self.queueLimit = queueLimit
    }
  }

  /// Why the output could not start: its port or its address, and the system's reason.
  public struct StartFailure: Error, CustomStringConvertible {
    public var description: String
  }

  /// What has gone out so far.
  public struct Counters: Sendable, Equatable {
    /// Epochs sent (or sentences, for a receiver whose sentences go as they came).
    public var sent = 0
    /// TCP clients connected now, and connections taken since the start.
    public var clients = 0
    public var connections = 0
    /// Clients closed for not reading (or for being one too many).
    public var dropped = 0
    /// Datagrams the system would not send (a full buffer, no route).
    public var datagramsLost = 0
  }

  public let configuration: Configuration
  private let queue = DispatchQueue(label: "gpsbridge.nmea-output")
  // On `queue` from here down.
  private let registry: ClientRegistry<Void>
  private var listener: (socket: FileDescriptor, source: any DispatchSourceRead)?
  /// Closes the clients turned away once they have read why (or two seconds on).
  private var sweeper: (any DispatchSourceTimer)?
  private var datagrams: FileDescriptor?
  private var counters = Counters()

  /// Opens what `configuration` names: its TCP port listens and its UDP socket is made now.
  /// - Throws: a port taken or an address that does not resolve, in words for people.
  public init(_ configuration: Configuration) throws(StartFailure) {
    self.configuration = configuration
    registry = ClientRegistry(queue: queue, maximumClients: configuration.maximumClients, queueLimit: configuration.queueLimit)
    // The datagram socket first: nothing is listening yet if its address is refused.
    if let udp = configuration.udp {
      do {
        datagrams = try FileDescriptor.udpSender(host: udp.host, port: udp.port, broadcast: configuration.broadcast)
      } catch {
        throw StartFailure(description: "--nmea-udp \(udp): \(Self.reason(error))")
      }
    }
    if let tcp = configuration.tcp {
      let socket: FileDescriptor
      do {
        socket = try FileDescriptor.listenTCP(host: tcp.host, port: tcp.port)
      } catch {
        try? datagrams?.close()
        throw StartFailure(description: "--nmea-tcp \(tcp): \(Self.reason(error))")
      }
      let source = DispatchSource.makeReadSource(fileDescriptor: socket.rawValue, queue: queue)
      source.setEventHandler { [weak self] in self?.acceptWaiting() }
      source.setCancelHandler { try? socket.close() }
      listener = (socket, source)
      source.resume()
      let sweeper = DispatchSource.makeTimerSource(queue: queue)
      sweeper.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1))
      sweeper.setEventHandler { [weak self] in self?.registry.sweep(now: .now) }
      sweeper.resume()
      self.sweeper = sweeper
    }
  }

  private static func reason(_ error: ConnectFailure) -> String {
    switch error {
    case .system(.addressInUse): "the port is taken by another program."
    case .system(.permissionDenied): "not allowed (a port below 1024 needs root, a broadcast address --nmea-broadcast)."
    case .system(let errno): "\(errno)."
    case .unknownHost(let host), .lookupUnanswered(let host): "\(host) does not resolve."
    }
  }

  /// The TCP port listened on (useful after asking for port 0).
  public var tcpPort: Int? { queue.sync { listener?.socket.localPort } }

  public var statistics: Counters {
    queue.sync {
      var counters = self.counters
      counters.clients = registry.count
      counters.connections = registry.connections
      counters.dropped = registry.dropped
      return counters
    }
  }

  /// Sends `receiver`'s epochs until the task is cancelled: its sentences as it sent them,
  /// or, with `writingFromFixes` (a virtual receiver), or for an epoch that came without
  /// sentences (UBX only), sentences written from its fix. Listening only keeps the receiver
  /// going while it is served otherwise (an observer).
  public func follow(_ receiver: Receiver, writingFromFixes: Bool) async {
    let heardSentences = Locked(false)
    let listener = receiver.observe(wanting: writingFromFixes ? [.fixes, .satellites] : [.fixes, .satellites, .sentences]) {
      [self] event in
      switch event {
      case .sentence(let sentence):
        heardSentences.withLock { $0 = true }
        publish(sentence + [0x0D, 0x0A])
      case .fix(let fix):
        // An epoch whose sentences went out already is not written again.
        guard
          !heardSentences.withLock({ heard in
            defer { heard = false }; return heard
          })
        else { return }
        let sentences = FixSentences.sentences(for: fix)
        if !sentences.isEmpty { publish(sentences) }
      default: break
      }
    }
    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    receiver.stopListening(listener)
  }

  /// Sends `bytes` (whole sentences) to every client and as datagrams, before returning: on
  /// the caller's thread when the output is idle (writes never block; a client's queue is
  /// bounded), so an epoch reaches the sockets without waiting for another thread to wake.
  public func publish(_ bytes: [UInt8]) {
    queue.sync { [self] in
      counters.sent += 1
      for client in registry.clients { registry.send(bytes, to: client) }
      guard let datagrams else { return }
      // A datagram of at most 1,400 bytes (under a link's MTU), cut between sentences.
      var start = 0
      while start < bytes.count {
        var end = min(bytes.count, start + 1400)
        if end < bytes.count, let lineEnd = bytes[start..<end].lastIndex(of: 0x0A) { end = lineEnd + 1 }
        let sent = bytes[start..<end].withUnsafeBytes { send(datagrams.rawValue, $0.baseAddress, $0.count, CInt(MSG_DONTWAIT)) }
        if sent < 0 { counters.datagramsLost += 1 }
        start = end
      }
    }
  }

  private func acceptWaiting() {
    guard let socket = listener?.socket else { return }
    registry.acceptWaiting(
      on: socket, session: {}, received: { _, _ in }, mayGo: { _ in false }, makeRoom: [],
      full: Array("Too many clients: at most \(configuration.maximumClients) at once.\r\n".utf8))
  }

  /// Stops listening and closes every client and the UDP socket.
  public func stop() {
    queue.sync {
      listener?.source.cancel()
      listener = nil
      sweeper?.cancel()
      sweeper = nil
      registry.closeAll()
      try? datagrams?.close()
      datagrams = nil
    }
  }

  deinit {
    listener?.source.cancel()
    sweeper?.cancel()
    try? datagrams?.close()
  }
}
