import GPSD
import NMEA
import Plumbing

/// A running gpsd, read over its TCP JSON protocol: the gpsd that owns the receiver on
/// many Linux boxes.
///
/// - Connects, asks `?WATCH={"enable":true,"json":true}` (for one device if given), and turns
///   TPV, SKY, GST and ATT reports into the same ``Fix`` values the NMEA path makes, so the
///   engine behaves identically whichever source feeds it.
/// - **Not running**: an error saying so, and retries after ``Timing/reconnectMinimum``,
///   doubling to ``Timing/reconnectMaximum`` (a few attempts a second, so a restarted gpsd
///   is back within a fraction of a second).
/// - **Connection lost or gpsd restarted**: `paused`, reconnect at once and then as above,
///   WATCH again, `resumed`. Subscribers see only the pause and the resume.
/// - **A host name that does not resolve** stops the source with one error (`stopped`); a
///   name server that does not answer is retried.
/// - **Silence**: with a device active, no report for ``Timing/silenceTimeout`` means the
///   connection is stale (TCP keepalive covers a peer that vanished while idle): reconnect.
/// - **No device or no fix**: after ``Timing/noFixTimeout`` without a position, one error
///   that says which; no locations are made up.
package struct GPSDSource: FixSource {
  package struct Timing: Hashable, Sendable {
    package var connectTimeout = 3
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
  /// When set, gpsd is asked for NMEA instead of JSON and every line goes here (for
  /// `gpsbridge record`); no fixes are made.
  package let rawNMEA: (@Sendable ([UInt8]) -> Void)?
  /// Where the counts of rejected lines go, for a status line.
  package let rejects: RejectedInput?
  /// Whether gpsd's own client library reads the reports (the `libgps` trait).
  package let throughLibGPS: Bool

  package init(
    host: String = GPSDAddress.standard.host, port: Int = GPSDAddress.standard.port, device: String? = nil, timing: Timing = .init(),
    rawNMEA: (@Sendable ([UInt8]) -> Void)? = nil, rejects: RejectedInput? = nil, throughLibGPS: Bool = false
  ) {
    self.throughLibGPS = throughLibGPS
    self.host = host
    self.port = port
    self.device = device
    self.timing = timing
    self.rawNMEA = rawNMEA
    self.rejects = rejects
  }

  var address: GPSDAddress { GPSDAddress(host: host, port: port) }

  package var initialAuthorization: AuthorizationStatus { .notDetermined }

  package func isPresent() async -> Bool {
    guard let socket = try? FileDescriptor.connectTCP(host: host, port: port, timeout: 1) else { return false }
    try? socket.close()
    return true
  }

  package func checkAuthorization() async -> AuthorizationStatus {
    await isPresent() ? .authorizedAlways : .notDetermined
  }

  package func run(_ deliver: @escaping @Sendable (SourceEvent) async -> Void) async {
    let shape = Locked(GPSDFixAssembler.Shape())
    #if libgps
      if throughLibGPS {
        await reconnecting(
          deliver, open: { () throws(LocationManager.Error) in try LibGPSConnection.open(host: host, port: port) },
          read: { connection, deliver in await read(connection, shape, deliver) }, close: { $0.close() })
        return
      }
    #endif
    await reconnecting(
      deliver,
      open: { () throws(LocationManager.Error) -> FileDescriptor in
        do throws(ConnectFailure) {
          return try FileDescriptor.connectTCP(host: host, port: port, timeout: timing.connectTimeout)
        } catch {
          switch error {
          case .unknownHost(let name): throw .init(.hostNotFound(host: name))
          case .lookupUnanswered(let name): throw .init(.hostLookupFailed(host: name))
          case .system(.connectionRefused): throw .init(.gpsdNotRunning(address: address.description))
          case .system(let errno): throw .init(.gpsdUnreachable(address: address.description, description: errno.description))
          }
        }
      },
      read: { socket, deliver in await read(socket, shape, deliver) }, close: { try? $0.close() })
  }

  /// gpsd's reconnection, whichever client reads the connection: a lost one is said as such,
  /// permanent causes stop, the rest are retried with the backoff of ``Timing``.
  private func reconnecting<Connection>(
    _ deliver: @escaping @Sendable (SourceEvent) async -> Void, open: () throws(LocationManager.Error) -> Connection,
    read: (Connection, _ deliver: @escaping @Sendable (SourceEvent) async -> Void) async -> Outcome, close: (Connection) -> Void
  ) async {
    await runReconnecting(
      deliver: deliver, open: open,
      session: { connection, deliver in
        switch await read(connection, deliver) {
        case .cancelled: return .cancelled
        case .lost(let reason): return .lost(.init(.gpsdConnectionLost(address: address.description, description: reason)))
        }
      },
      close: close,
      isPermanent: { error in error.reason?.isPermanent ?? false },
      wait: { _, failures in
        await sleepUnlessCancelled(backoff(after: failures, minimum: timing.reconnectMinimum, maximum: timing.reconnectMaximum))
      })
  }

  enum Outcome {
    case cancelled
    case lost(String)
  }

  enum Event: Sendable {
    case fix(Fix)
    case report(GPSDReport)
    case tick
    case closed(Errno?)
  }

  private func read(
    _ socket: FileDescriptor, _ shape: Locked<GPSDFixAssembler.Shape>, _ deliver: @escaping @Sendable (SourceEvent) async -> Void
  ) async -> Outcome {
    let (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
    let decoder = ReportDecoder(continuation: continuation, source: self, shape: shape)
    let reader = DescriptorReader(
      descriptor: socket, label: "gpsbridge.gpsd",
      onBytes: { bytes in decoder.received(bytes) }, onTick: decoder.tick, onClosed: decoder.closed)
    reader.start()
    let request = rawNMEA == nil ? GPSDRequest.watch(device: device) : .watchNMEA(device: device)
    do {
      try socket.writeAll(Array(request.line.utf8))
    } catch {
      await reader.stop()
      return .lost("\(error)")
    }
    return await follow(events, reader, deliver)
  }

  #if libgps
    /// One connection through libgps: its reports into the same events as the JSON path's.
    private func read(
      _ connection: LibGPSConnection, _ shape: Locked<GPSDFixAssembler.Shape>, _ deliver: @escaping @Sendable (SourceEvent) async -> Void
    ) async -> Outcome {
      let (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
      let decoder = ReportDecoder(continuation: continuation, source: self, shape: shape)
      let reader = DescriptorReader(
        descriptor: connection.descriptor, label: "gpsbridge.libgps",
        onReadable: { connection.readReports { decoder.take($0) } }, onTick: decoder.tick, onClosed: decoder.closed)
      guard connection.watch(device: device) else { return .lost("libgps could not send its WATCH") }
      reader.start()
      return await follow(events, reader, deliver)
    }
  #endif

  /// Follows one connection's events until it is lost or the task is cancelled: fixes out,
  /// gpsd's errors said, silence and a missing device or fix noticed.
  private func follow(
    _ events: AsyncStream<Event>, _ reader: DescriptorReader, _ deliver: @escaping @Sendable (SourceEvent) async -> Void
  ) async -> Outcome {
    let connected = ContinuousClock.now
    var lastReport = ContinuousClock.now
    var hasDevice = false
    var hadPosition = false
    var noFixReported = false
    let outcome: Outcome = await withTaskCancellationHandler {
      for await event in events {
        switch event {
        case .fix(let fix):
          lastReport = .now
          if fix.hasPosition { hadPosition = true }
          await deliver(.fix(fix))
        case .report(let report):
          lastReport = .now
          switch report {
          case .devices(let list):
            hasDevice = !(list.devices ?? []).isEmpty
          case .device(let device):
            if device.activated != nil { hasDevice = true }
          case .tpv, .sky, .gst, .att:
            hasDevice = true
          case .error(let error):
            await deliver(.failed(.init(.gpsdError(address: address.description, message: error.message ?? "error"))))
          default:
            break
          }
        case .tick:
          let now = ContinuousClock.now
          if hasDevice, lastReport.duration(to: now) >= timing.silenceTimeout {
            return .lost("no report for \(timing.silenceTimeout)")
          }
          if !hadPosition, !noFixReported, connected.duration(to: now) >= timing.noFixTimeout, rawNMEA == nil {
            noFixReported = true
            let seconds = Int(timing.noFixTimeout.components.seconds)
            await deliver(
              .failed(
                .init(
                  hasDevice ? .gpsdHasNoFix(address: address.description, seconds: seconds) : .gpsdHasNoDevice(address: address.description)
                )))
          }
        case .closed(let error):
          return .lost(error.map { "\($0)" } ?? "gpsd closed the connection")
        }
      }
      return .cancelled
    } onCancel: {
      Task { await reader.stop() }
    }
    await reader.stop()
    return Task.isCancelled ? .cancelled : outcome
  }
}

/// gpsd's bytes to reports and fixes, on the reader's queue.
private final class ReportDecoder: @unchecked Sendable {
  let continuation: AsyncStream<GPSDSource.Event>.Continuation
  /// Where the taps (``GPSDSource/rawNMEA``, its rejects) come from.
  let source: GPSDSource
  /// What this gpsd's fixes carry, learned across connections.
  let shape: Locked<GPSDFixAssembler.Shape>
  var decoder: GPSDStreamDecoder

  init(continuation: AsyncStream<GPSDSource.Event>.Continuation, source: GPSDSource, shape: Locked<GPSDFixAssembler.Shape>) {
    self.continuation = continuation
    self.source = source
    self.shape = shape
    self.decoder = GPSDStreamDecoder(passesNMEA: source.rawNMEA != nil, shape: shape.withLock { $0 })
  }

  func received(_ bytes: UnsafeRawBufferPointer) {
    decoder.append(bytes)
    drain()
  }

  /// A report read by libgps.
  func take(_ report: GPSDReport) {
    if let output = decoder.take(report) { yield(output) }
    drain()
  }

  /// The reader's clock, for silence detection.
  func tick() {
    continuation.yield(.tick)
  }

  /// The connection ended: what gpsd said last still counts, then the end.
  func closed(_ error: Errno?) {
    decoder.finish()
    drain()
    continuation.yield(.closed(error))
    continuation.finish()
  }

  private func drain() {
    while let output = decoder.next() { yield(output) }
    source.rejects?.update(decoder.counters.rejectionSummary)
  }

  private func yield(_ output: GPSDStreamDecoder.Output) {
    switch output {
    case .fix(let fix):
      continuation.yield(.fix(fix))
      shape.withLock { $0 = decoder.shape }
    case .report(let report): continuation.yield(.report(report))
    case .nmea(let line):
      // NMEA mode: sentences pass through and count as reports for silence detection.
      source.rawNMEA?(Array(line) + [0x0D, 0x0A])
      continuation.yield(.report(.unknown("NMEA")))
    }
  }
}
