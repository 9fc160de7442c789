import Dispatch
import GPSD
import NMEA
import Plumbing
import SourceStatus

/// A running gpsd, read over its TCP JSON protocol: the gpsd that owns the receiver on
/// many Linux boxes.
///
/// - Connects, asks `?WATCH={"enable":true,"json":true}` (for one device if given), and turns
///   TPV, SKY, GST and ATT reports into the same ``Fix`` values the NMEA path makes, so the
///   engine behaves identically whichever source feeds it.
/// - **Not running**: an error saying so, and retries after `Timing/reconnectMinimum`,
///   doubling to `Timing/reconnectMaximum` (a few attempts a second, so a restarted gpsd
///   is back within a fraction of a second).
/// - **Connection lost or gpsd restarted**: `paused`, reconnect at once and then as above,
///   WATCH again, `resumed`. Subscribers see only the pause and the resume.
/// - **A host name that does not resolve** stops the source with one error (`stopped`); a
///   name server that does not answer is retried.
/// - **Silence**: with a device active, no report for `Timing/silenceTimeout` means the
///   connection is stale (TCP keepalive covers a peer that vanished while idle): reconnect.
/// - **No device or no fix**: after `Timing/noFixTimeout` without a position, one error
///   that says which; a device that comes after "no device" was said gets its own
///   `Timing/noFixTimeout` before "no fix" is. No locations are made up.
public struct GPSDSource: ByteSource {
  package struct Timing: Hashable, Sendable {
    package var connectTimeout = 3
    /// How long a server that accepted the connection may take to send gpsd's VERSION banner
    /// before it is taken for no gpsd (or a hung one), and the connection tried again.
    package var bannerTimeout: Duration = .seconds(3)
    package var silenceTimeout: Duration = .seconds(5)
    package var noFixTimeout: Duration = .seconds(10)
    package var reconnectMinimum: Duration = .milliseconds(100)
    package var reconnectMaximum: Duration = .milliseconds(250)
    package init() {}
  }

  package let host: String
  package let port: Int
  package let device: String?
  package let timing: Timing
  /// Whether gpsd is asked for its devices' NMEA rather than JSON: each line is published as
  /// the receiver's bytes and sentence (for `gpsbridge record`), and no fixes are made.
  package let watchesNMEA: Bool
  /// Whether gpsd's own client library reads the reports (the `libgps` trait).
  package let throughLibGPS: Bool
  /// The clock and timers of its reconnection and session watch: a test's own clock in tests.
  package let scheduler: Scheduler

  package init(
    host: String = GPSDAddress.standard.host, port: Int = GPSDAddress.standard.port, device: String? = nil, timing: Timing,
    watchesNMEA: Bool = false, throughLibGPS: Bool = false, scheduler: Scheduler = .live
  ) {
    self.scheduler = scheduler
    self.throughLibGPS = throughLibGPS
    self.host = host
    self.port = port
    self.device = device
    self.timing = timing
    self.watchesNMEA = watchesNMEA
  }

  /// gpsd at `host:port` (default 127.0.0.1:2947), optionally one of its devices. With
  /// `watchesNMEA`, gpsd is asked for its devices' NMEA rather than JSON: each line is
  /// published as the receiver's bytes and sentence (for recording a capture), and no fixes
  /// are made.
  public init(
    host: String = GPSDAddress.standard.host, port: Int = GPSDAddress.standard.port, device: String? = nil, watchesNMEA: Bool = false
  ) {
    self.init(host: host, port: port, device: device, timing: .init(), watchesNMEA: watchesNMEA)
  }

  #if libgps
    /// gpsd read through the system libgps instead of its JSON when `throughLibGPS` (the
    /// `libgps` trait).
    public init(
      host: String = GPSDAddress.standard.host, port: Int = GPSDAddress.standard.port, device: String? = nil, throughLibGPS: Bool
    ) {
      self.init(host: host, port: port, device: device, timing: .init(), throughLibGPS: throughLibGPS)
    }
  #endif

  var address: GPSDAddress { GPSDAddress(host: host, port: port) }

  public var initialAuthorization: AuthorizationStatus { .notDetermined }

  public func isPresent() async -> Bool {
    guard let socket = try? await TCPConnect.connect(host: host, port: port, timeout: .seconds(1)) else { return false }
    try? socket.close()
    return true
  }

  public func checkAuthorization() async -> AuthorizationStatus {
    await isPresent() ? .authorizedAlways : .notDetermined
  }

  public func run(for receiver: Receiver) async {
    let shape = Locked(GPSDFixAssembler.Shape())
    // One queue for the source's whole run: every connection is read on it in turn.
    let queue = DispatchQueue(label: throughLibGPS ? "gpsbridge.libgps" : "gpsbridge.gpsd", qos: .userInteractive)
    #if libgps
      if throughLibGPS {
        await reconnecting(
          receiver, open: { () throws(SourceError) in try LibGPSConnection.open(host: host, port: port) },
          read: { connection in await read(connection, shape, on: queue, receiver) }, close: { $0.close() })
        return
      }
    #endif
    await reconnecting(
      receiver,
      open: { () async throws(SourceError) -> FileDescriptor in
        let socket: FileDescriptor
        do throws(ConnectFailure) {
          socket = try await TCPConnect.connect(host: host, port: port, timeout: .seconds(timing.connectTimeout))
        } catch {
          switch error {
          case .unknownHost(let name): throw .hostNotFound(host: name)
          case .lookupUnanswered(let name): throw .hostLookupFailed(host: name)
          case .system(.connectionRefused): throw .gpsdNotRunning(address: address.description)
          case .system(let errno): throw .gpsdUnreachable(address: address.description, description: errno.description)
          }
        }
        // A gpsd speaks first (its VERSION banner): a server that accepts and says nothing is
        // not one, or is hung, and holding on to it would wait forever.
        guard await socket.readable(within: timing.bannerTimeout) else {
          try? socket.close()
          throw .gpsdSilent(address: address.description, seconds: Int(timing.bannerTimeout.components.seconds))
        }
        return socket
      },
      read: { socket in await read(socket, shape, on: queue, receiver) }, close: { try? $0.close() })
  }

  /// gpsd's reconnection, whichever client reads the connection: a lost one is said as such,
  /// permanent causes stop, the rest are retried with the backoff of ``Timing``.
  private func reconnecting<Connection>(
    _ receiver: Receiver, open: () async throws(SourceError) -> Connection,
    read: (Connection) async -> Outcome, close: (Connection) -> Void
  ) async {
    await runReconnecting(
      for: receiver, now: scheduler.now,
      open: { () async throws(SourceError) -> Connection in
        // Each connection is a new session: a restarted gpsd's times may start over.
        receiver.publish(.attempt)
        return try await open()
      },
      session: { connection in
        switch await read(connection) {
        case .cancelled: return .cancelled
        case .lost(let reason, let hadFix):
          return .lost(.gpsdConnectionLost(address: address.description, description: reason), hadFix: hadFix)
        }
      },
      close: close,
      isPermanent: { error in error.isPermanent },
      wait: { _, failures in
        await scheduler.sleep(backoff(after: failures, minimum: timing.reconnectMinimum, maximum: timing.reconnectMaximum))
      })
  }

  enum Outcome {
    case cancelled
    case lost(String, hadFix: Bool)
  }

  /// How a connection ended, as its reader's queue saw it: the reason, and whether a fix came.
  struct Ending: Sendable {
    var reason: String
    var hadFix: Bool
  }

  /// A watch of one connection, from now.
  private var sessionWatch: GPSDSessionWatch {
    GPSDSessionWatch(
      address: address.description, timing: .init(silenceTimeout: timing.silenceTimeout, noFixTimeout: timing.noFixTimeout),
      watchesNMEA: watchesNMEA, now: scheduler.now())
  }

  private func read(
    _ socket: FileDescriptor, _ shape: Locked<GPSDFixAssembler.Shape>, on queue: DispatchQueue, _ receiver: Receiver
  ) async -> Outcome {
    let decoder = ReportDecoder(receiver: receiver, watch: sessionWatch, shape: shape, now: scheduler.now)
    let reader = DescriptorReader(
      descriptor: socket, queue: queue, scheduler: scheduler,
      onBytes: { bytes in decoder.received(bytes) }, onTick: decoder.tick, onClosed: decoder.closed)
    decoder.reader = reader
    reader.start()
    let request = watchesNMEA ? GPSDRequest.watchSentences(device: device) : .watchReports(device: device)
    do {
      try socket.writeAll(Array(request.line.utf8))
    } catch {
      await reader.stop()
      return .lost("\(error)", hadFix: false)
    }
    return await follow(decoder, reader)
  }

  #if libgps
    /// One connection through libgps: its reports into the same events as the JSON path's.
    private func read(
      _ connection: LibGPSConnection, _ shape: Locked<GPSDFixAssembler.Shape>, on queue: DispatchQueue, _ receiver: Receiver
    ) async -> Outcome {
      let decoder = ReportDecoder(receiver: receiver, watch: sessionWatch, shape: shape, now: scheduler.now)
      let reader = DescriptorReader(
        descriptor: connection.descriptor, queue: queue, scheduler: scheduler,
        onReadable: { connection.readReports { decoder.take($0) } }, onTick: decoder.tick, onClosed: decoder.closed)
      decoder.reader = reader
      guard connection.watch(device: device) else { return .lost("libgps could not send its WATCH", hadFix: false) }
      reader.start()
      return await follow(decoder, reader)
    }
  #endif

  /// Waits for one connection to end (its reader's queue decides when: see
  /// ``GPSDSessionWatch``), or the task to be cancelled.
  private func follow(_ decoder: ReportDecoder, _ reader: DescriptorReader) async -> Outcome {
    let ending = await withTaskCancellationHandler {
      await decoder.ending()
    } onCancel: {
      Task { await reader.stop() }
    }
    await reader.stop()
    return Task.isCancelled ? .cancelled : .lost(ending.reason, hadFix: ending.hadFix)
  }
}

/// gpsd's bytes to reports and fixes, on the reader's queue: fixes (or, watching NMEA, the
/// lines) go straight to the receiver's listeners, and the connection's watch hears the rest
/// there too, so what it says is in order with the fixes.
private final class ReportDecoder: @unchecked Sendable {
  let receiver: Receiver
  /// What this gpsd's fixes carry, learned across connections.
  let shape: Locked<GPSDFixAssembler.Shape>
  var decoder: GPSDStreamDecoder
  var watch: GPSDSessionWatch
  var lastRejection: String?
  /// The reader, to end a stale connection; set before it starts.
  weak var reader: DescriptorReader?
  /// Why the connection ended, once it has, and who waits for it.
  private let end = Locked<(GPSDSource.Ending?, CheckedContinuation<GPSDSource.Ending, Never>?)>((nil, nil))
  /// A stale connection's reason, given when the reader has closed it.
  private var staleReason: String?
  /// The time the watch is told.
  private let now: @Sendable () -> ContinuousClock.Instant

  init(
    receiver: Receiver, watch: GPSDSessionWatch, shape: Locked<GPSDFixAssembler.Shape>,
    now: @escaping @Sendable () -> ContinuousClock.Instant
  ) {
    self.now = now
    self.receiver = receiver
    self.shape = shape
    self.watch = watch
    self.decoder = GPSDStreamDecoder(passesNMEA: watch.watchesNMEA, shape: shape.withLock { $0 })
  }

  /// Waits for the connection's end.
  func ending() async -> GPSDSource.Ending {
    await withCheckedContinuation { continuation in
      let ended = end.withLock { state -> GPSDSource.Ending? in
        if state.0 == nil { state.1 = continuation }
        return state.0
      }
      if let ended { continuation.resume(returning: ended) }
    }
  }

  func received(_ bytes: UnsafeRawBufferPointer) {
    decoder.append(bytes)
    drain()
  }

  /// A report read by libgps.
  func take(_ report: GPSDReport) {
    if let output = decoder.take(report) { handle(output) }
    drain()
  }

  /// The reader's clock: silence, and a missing device or fix.
  func tick() {
    let (stale, problem) = watch.tick(now: now())
    if let problem { receiver.publish(.status(.failed(problem))) }
    if let stale, staleReason == nil {
      staleReason = stale
      reader?.closeFromQueue()
    }
  }

  /// The connection ended: what gpsd said last still counts, then the end.
  func closed(_ error: Errno?) {
    decoder.finish()
    drain()
    let ending = GPSDSource.Ending(
      reason: staleReason ?? error.map { "\($0)" } ?? "gpsd closed the connection", hadFix: watch.hadFix)
    let waiter = end.withLock { state in
      state.0 = ending
      return state.1
    }
    waiter?.resume(returning: ending)
  }

  private func drain() {
    while let output = decoder.next() { handle(output) }
    let rejection = decoder.counters.rejectionSummary
    if rejection != lastRejection, let rejection {
      lastRejection = rejection
      receiver.publish(.rejected(rejection))
    }
    receiver.publish(.flush)
  }

  private func handle(_ output: GPSDStreamDecoder.Output) {
    switch output {
    case .fix(let fix):
      receiver.publish(.fix(fix))
      watch.fix(hasPosition: fix.hasPosition, now: now())
      shape.withLock { $0 = decoder.shape }
    case .report(let report):
      if let problem = watch.report(report, now: now()) { receiver.publish(.status(.failed(problem))) }
    case .nmea(let line):
      // NMEA mode: each line is the receiver's, and counts as a report for silence detection.
      let sentence = Array(line)
      receiver.publish(.bytes(sentence + [0x0D, 0x0A]))
      receiver.publish(.sentence(sentence))
      _ = watch.report(.unknown("NMEA"), now: now())
    }
  }
}
