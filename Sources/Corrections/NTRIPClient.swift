import Dispatch
import Framing
import NMEA
import Plumbing
import Transports

/// Corrections from an NTRIP caster to a receiver: the stream (NTRIP 1 or 2) checked frame by
/// frame (``CorrectionStream``) and each whole frame written to the receiver through its
/// two-way session, in order, never blocking its reading; the receiver's own GGA sent up when
/// the mountpoint wants it (or `ggaInterval` says so); and the connection made again, with
/// backoff, after an error, a closed stream or a stall. A caster that refuses the user or has
/// no such mountpoint is a clear stop. Nothing here ever says the password.
///
/// The caster is read through a ``ClientConnection``: every wait is a Dispatch source or timer,
/// and no thread waits for the caster.
public final class NTRIPClient: Sendable {
  public struct Configuration: Sendable {
    public var address: NTRIPAddress
    /// Send the receiver's GGA up this often; `nil`: only when the sourcetable says the
    /// mountpoint wants it (`nmea=1`), then every ``defaultGGAInterval``.
    public var ggaInterval: Duration?
    /// No byte for this long is a stall: the connection is made again.
    public var stall: Duration = .seconds(10)
    /// The longest wait between attempts.
    public var longestBackoff: Duration = .seconds(60)

    public init(address: NTRIPAddress, ggaInterval: Duration? = nil) {
      self.address = address
      self.ggaInterval = ggaInterval
    }
  }

  public static let defaultGGAInterval: Duration = .seconds(10)

  /// Why the client stopped for good.
  public struct Failure: Error, Sendable, CustomStringConvertible {
    public var description: String
  }

  /// The stream's health now, for the status line, `?DEVICES` and the page.
  public struct Health: Sendable, Equatable {
    public var connected = false
    public var bytes = 0
    /// Bytes a second, over the last few seconds.
    public var bytesPerSecond = 0.0
    /// Frames written to the receiver.
    public var forwarded = 0
    /// Whole frames dropped: the receiver's link was full, or the receiver was away.
    public var dropped = 0
    /// Whether forwarding is paused because the receiver is away (unplugged, between
    /// replugs): frames are dropped and counted until it is back, and the stream is kept.
    public var receiverAway = false
    public var messageTypes: [Int: Int] = [:]
    public var rejects: [String: Int] = [:]
    /// Seconds since the last frame, `nil` before the first.
    public var lastFrameAge: Double?
    /// The reference station's id and its distance from the receiver, metres.
    public var stationID: Int?
    public var stationDistance: Double?
    /// GGA sentences sent up.
    public var ggaSent = 0
    /// What the client is doing: "connecting", "streaming", "stalled: reconnecting in 4 s"…
    public var state = "starting"
  }

  public let configuration: Configuration
  private let receiver: Receiver
  private let said: @Sendable (String) -> Void
  private let shared = Locked(Shared())
  private let now: @Sendable () -> ContinuousClock.Instant

  private struct Shared {
    var health = Health()
    var lastFrame: ContinuousClock.Instant?
    var latestFix: (fix: Fix, at: ContinuousClock.Instant)?
    var stopped = false
    /// The connection now, woken when the client is to stop.
    var connection: ClientConnection?
    /// When the current connection began streaming (the wall clock's time, for gpsd's DEVICE).
    var connectedSince: UTCTimestamp?
    /// Whether the mountpoint wants the GGA, as its sourcetable said (asked once, first).
    var tableWantsGGA: Bool?
    /// Whether a distant station was said (once).
    var saidDistance = false
    /// Bytes read, with when, for the rate.
    var recent: [(at: ContinuousClock.Instant, bytes: Int)] = []
  }

  public init(
    _ configuration: Configuration, receiver: Receiver, said: @escaping @Sendable (String) -> Void = { _ in },
    now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
  ) {
    self.configuration = configuration
    self.receiver = receiver
    self.said = said
    self.now = now
  }

  /// The stream's health now.
  public var health: Health {
    shared.withLock { shared in
      var health = shared.health
      health.lastFrameAge = shared.lastFrame.map { Self.seconds($0.duration(to: now())) }
      let window = shared.recent.filter { $0.at.duration(to: now()) < .seconds(5) }
      if let first = window.first, let last = window.last, first.at < last.at {
        health.bytesPerSecond = Double(window.dropFirst().reduce(0) { $0 + $1.bytes }) / Self.seconds(first.at.duration(to: last.at))
      } else {
        health.bytesPerSecond = 0
      }
      return health
    }
  }

  /// Streams corrections until the task is cancelled. It wants the receiver's fixes (for the
  /// GGA it sends up), which keeps the receiver's session going meanwhile; when it was the
  /// last to want it, it returns once the device is closed.
  /// - Throws: ``Failure`` when the caster refuses the user or password, or has no such
  ///   mountpoint: causes that retrying cannot mend.
  public func run() async throws(Failure) {
    let listener = receiver.listen(wanting: .fixes) { [shared, now] event in
      if case .fix(let fix) = event { shared.withLock { $0.latestFix = (fix, now()) } }
    }
    let outcome: Result<Void, Failure> = await withTaskCancellationHandler {
      do throws(Failure) {
        try await loop()
        return .success(())
      } catch {
        return .failure(error)
      }
    } onCancel: {
      let connection = shared.withLock { shared in
        shared.stopped = true
        return shared.connection
      }
      connection?.wake()
    }
    receiver.stopListening(listener)
    await receiver.sessionClosed()
    try outcome.get()
  }

  private var isStopped: Bool { shared.withLock { $0.stopped } }

  /// When the current connection began streaming.
  var connectedSince: UTCTimestamp? { shared.withLock { $0.connectedSince } }

  /// Sessions, one after another, with backoff, until stopped.
  private func loop() async throws(Failure) {
    var policy = ReconnectPolicy(longest: configuration.longestBackoff)
    while !isStopped {
      let ending: SessionEnd
      do {
        ending = try await session()
      } catch {
        setState("stopped: \(error)")
        said("gpsbridge: corrections: \(error)")
        throw error
      }
      if isStopped { return }
      let (backoff, say) = policy.ended(reason: ending.reason, worked: ending.delivered)
      let message = "\(ending.reason); connecting again in \(Self.seconds(backoff).formatted) s"
      if say { said("gpsbridge: corrections from \(configuration.address): \(message).") }
      setState(message)
      guard await sleepUnlessCancelled(backoff) else { return }
    }
  }

  private struct SessionEnd {
    var reason: String
    /// Whether frames came through, so the next wait starts short again.
    var delivered: Bool
  }

  /// One connection: request, answer, stream until it ends.
  private func session() async throws(Failure) -> SessionEnd {
    let address = configuration.address
    setState("connecting")
    // Whether to send the GGA up: asked of the sourcetable once, before the stream (a table
    // read after it would hold the stream up while it came).
    if configuration.ggaInterval == nil, shared.withLock({ $0.tableWantsGGA }) == nil {
      let wants = (try? await NTRIPSourcetableRequest.fetch(host: address.host, port: address.port, timeout: 5))?[address.mountpoint]?
        .wantsGGA
      shared.withLock { $0.tableWantsGGA = wants ?? false }
    }
    let connection: ClientConnection
    do {
      connection = try await ClientConnection.connect(host: address.host, port: address.port, label: "gpsbridge.ntrip")
    } catch {
      let reason: String
      switch error {
      case .unknownHost: reason = "the host name \(address.host) does not resolve"
      case .lookupUnanswered: reason = "no name server answered for \(address.host)"
      case .system(let errno): reason = "cannot connect to \(address.host):\(address.port): \(errno)"
      }
      return SessionEnd(reason: reason, delivered: false)
    }
    shared.withLock { $0.connection = connection }
    // Closed whichever way the session ends, a refusal too.
    let ending: Result<SessionEnd, Failure>
    do {
      ending = .success(try await session(on: connection))
    } catch {
      ending = .failure(error)
    }
    shared.withLock { shared in
      shared.connection = nil
      shared.health.connected = false
    }
    await connection.close()
    return try ending.get()
  }

  /// One connection, from the request on.
  private func session(on socket: ClientConnection) async throws(Failure) -> SessionEnd {
    let address = configuration.address
    if isStopped { return SessionEnd(reason: "stopped", delivered: false) }
    var request = "GET /\(address.mountpoint) HTTP/1.1\r\nHost: \(address.host)\r\nNtrip-Version: Ntrip/2.0\r\n"
    request += "User-Agent: NTRIP gpsbridge/\(Release.version)\r\n"
    if let authorization = address.authorization { request += "Authorization: \(authorization)\r\n" }
    request += "Connection: close\r\n\r\n"
    guard await sendAll(Array(request.utf8), on: socket) else {
      return SessionEnd(reason: "the caster closed the connection at once", delivered: false)
    }

    // The answer's head.
    var received: [UInt8] = []
    var answer: (NTRIPResponse, bodyStart: Int)?
    while answer == nil {
      switch await read(socket) {
      case .bytes(let bytes): received += bytes
      case .closed:
        // A head the caster ended by closing (an RTKLIB 401 has no empty line after it).
        if let last = NTRIPResponse.readAtEnd(received) {
          answer = (last, received.count)
          continue
        }
        return SessionEnd(reason: "the caster closed the connection without an answer", delivered: false)
      case .quiet:
        return SessionEnd(reason: "the caster did not answer in \(Self.seconds(configuration.stall).formatted) s", delivered: false)
      case .stopped: return SessionEnd(reason: "stopped", delivered: false)
      }
      answer = NTRIPResponse.read(received)
    }
    let (response, bodyStart) = answer!
    var chunked: ChunkedDecoder?
    switch response {
    case .stream(_, let isChunked): chunked = isChunked ? ChunkedDecoder() : nil
    case .unauthorized:
      throw Failure(
        description: address.user == nil
          ? "the caster \(address.host) wants a user and password (401): give them as ntrip://USER:PASSWORD@\(address.host)/\(address.mountpoint)."
          : "the caster \(address.host) refused the user and password (401).")
    case .sourcetable:
      // Casters answer a mountpoint whose base is offline with their table (some list it
      // there all the same, some leave it out until it is back): "not now", asked again with
      // the backoff. The rest of the table, within 10 s whatever the caster dribbles, says
      // which mountpoints there are.
      var table = Array(received[bodyStart...])
      let deadline = now().advanced(by: .seconds(10))
      while table.count < 1 << 20, now() < deadline, case .bytes(let bytes) = await read(socket, within: now().duration(to: deadline)) {
        table += bytes
      }
      let names = Sourcetable(text: String(decoding: table, as: UTF8.self)).mountpoints.map(\.name)
      let listed = names.prefix(20).joined(separator: ", ") + (names.count > 20 ? "…" : "")
      return SessionEnd(
        reason: names.contains(address.mountpoint)
          ? "the caster answered with its sourcetable, which lists '\(address.mountpoint)': its base is offline for now"
          : "the caster has no mountpoint '\(address.mountpoint)' now"
            + (names.isEmpty ? "" : " (it has \(listed))")
            + ": it may be offline, or misspelt ('gpsbridge ntrip \(address.host):\(address.port)' lists them)",
        delivered: false)
    case .refused(let line): return SessionEnd(reason: "the caster answered '\(line.prefix(80))'", delivered: false)
    case .garbage: return SessionEnd(reason: "the caster's answer is not NTRIP", delivered: false)
    }

    shared.withLock { shared in
      shared.health.connected = true
      shared.connectedSince = UTCTimestamp(nanosecondsSince1970: WallClock.now.nanosecondsSince1970 / 1_000_000 * 1_000_000)
      shared.health.state = shared.health.receiverAway ? "paused: the receiver is away" : "streaming"
    }
    var stream = CorrectionStream()
    var delivered = false
    var wantsGGA = configuration.ggaInterval != nil
    let ggaInterval = configuration.ggaInterval ?? Self.defaultGGAInterval
    var lastGGA: ContinuousClock.Instant?
    if !wantsGGA { wantsGGA = shared.withLock { $0.tableWantsGGA } ?? false }
    var pending = Array(received[bodyStart...])
    while !isStopped {
      if !pending.isEmpty {
        var data = pending
        if var decoder = chunked {
          data = decoder.decode(pending)
          chunked = decoder
          if decoder.failed { return SessionEnd(reason: "the caster's chunked stream is broken", delivered: delivered) }
        }
        let frames = stream.take(data)
        forward(frames, stream: stream, bytes: pending.count)
        if !frames.isEmpty { delivered = true }
        if chunked?.ended == true { return SessionEnd(reason: "the caster ended the stream", delivered: delivered) }
        pending = []
      }
      if wantsGGA, lastGGA.map({ $0.duration(to: now()) >= ggaInterval }) ?? true {
        if let gga = upstreamGGA() {
          guard await sendAll(gga, on: socket) else { return SessionEnd(reason: "the caster closed the connection", delivered: delivered) }
          shared.withLock { $0.health.ggaSent += 1 }
          lastGGA = now()
        }
      }
      switch await read(socket, within: wantsGGA ? min(configuration.stall, .seconds(1)) : configuration.stall) {
      case .bytes(let bytes): pending = bytes
      case .closed: return SessionEnd(reason: "the caster closed the stream", delivered: delivered)
      case .quiet:
        let silent = shared.withLock { shared in (shared.lastFrame ?? .now).duration(to: now()) }
        if !wantsGGA || silent >= configuration.stall {
          return SessionEnd(
            reason: "no corrections for \(Self.seconds(configuration.stall).formatted) s: the stream stalled", delivered: delivered)
        }
      case .stopped: return SessionEnd(reason: "stopped", delivered: delivered)
      }
    }
    return SessionEnd(reason: "stopped", delivered: delivered)
  }

  /// Each frame to the receiver, whole or not at all. While the receiver is away, forwarding
  /// pauses (frames dropped and counted, said once) and resumes with the first frame it takes.
  private func forward(_ frames: [RTCM3Frame], stream: CorrectionStream, bytes: Int) {
    var forwarded = 0, dropped = 0
    var away: Bool?
    for frame in frames {
      do {
        try receiver.send(frame.bytes)
        forwarded += 1
        away = false
      } catch {
        dropped += 1
        if error == .notConnected { away = true }
      }
    }
    let change: Bool? = shared.withLock { shared in
      guard let away, away != shared.health.receiverAway else { return nil }
      shared.health.receiverAway = away
      shared.health.state = away ? "paused: the receiver is away" : "streaming"
      return away
    }
    switch change {
    case true?: said("gpsbridge: corrections from \(configuration.address) paused: the receiver is away; they resume when it is back.")
    case false?: said("gpsbridge: corrections from \(configuration.address) resumed: the receiver is back.")
    case nil: break
    }
    let at = now()
    let far: (Int, Double)? = shared.withLock { shared in
      shared.health.bytes += bytes
      shared.recent.append((at, bytes))
      shared.recent.removeAll { $0.at.duration(to: at) > .seconds(5) }
      shared.health.forwarded += forwarded
      shared.health.dropped += dropped
      shared.health.messageTypes = stream.messageTypes
      shared.health.rejects = stream.rejects
      if !frames.isEmpty { shared.lastFrame = at }
      if let station = stream.station {
        shared.health.stationID = station.id
        if let fix = shared.latestFix?.fix, let latitude = fix.latitude, let longitude = fix.longitude, fix.hasPosition {
          let distance = station.distance(toLatitude: latitude, longitude: longitude)
          shared.health.stationDistance = distance
          if distance > ReferenceStation.rtkRange, !shared.saidDistance {
            shared.saidDistance = true
            return (station.id, distance)
          }
        }
      }
      return nil
    }
    if let (id, distance) = far {
      said(
        "gpsbridge: the reference station \(id) is \(Int((distance / 1000).rounded())) km from the receiver: beyond about 30 km RTK fixes come slower and float more; choose a nearer mountpoint if there is one."
      )
    }
  }

  /// The GGA to send up now, if the receiver vouches for its latest fix.
  private func upstreamGGA() -> [UInt8]? {
    let latest = shared.withLock { $0.latestFix }
    guard let latest else { return nil }
    return UpstreamGGA.sentence(for: latest.fix, age: latest.at.duration(to: now()))
  }

  private func setState(_ state: String) { shared.withLock { $0.health.state = state } }

  private enum ReadOutcome {
    case bytes([UInt8])
    case closed
    case quiet
    case stopped
  }

  /// What the caster sends within `within` (the stall time by default).
  private func read(_ socket: ClientConnection, within: Duration? = nil) async -> ReadOutcome {
    let received = await socket.receive(within: within ?? configuration.stall)
    if isStopped { return .stopped }
    switch received {
    case .bytes(let bytes): return .bytes(bytes)
    case .quiet, .woken: return .quiet
    case .closed: return .closed
    }
  }

  private func sendAll(_ bytes: [UInt8], on socket: ClientConnection) async -> Bool {
    guard !isStopped else { return false }
    return await socket.send(bytes)
  }

  static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}

extension Double {
  /// Whole numbers without a fraction, others with one decimal.
  fileprivate var formatted: String {
    self == rounded() ? String(Int(self)) : String((self * 10).rounded() / 10)
  }
}
