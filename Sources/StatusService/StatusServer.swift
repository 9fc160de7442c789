import Corrections
import GPSDServer
import Plumbing
import Station
import TimeService
import Transports

/// `serve --http`: the box at a glance, over HTTP. `/` is a live status page (every asset
/// built in; it follows `/events`, Server-Sent Events, without polling), `/metrics` the same
/// figures in Prometheus's text format, labelled by device, and `/status.json` the same for
/// scripts. Read-only, GET and HEAD only, and held to the gpsd port's limits (see the
/// hostile-client rules of ``GPSDServer``).
///
/// ```swift
/// let status = StatusServer(configuration, gpsd: server, station: station)
/// try status.start()
/// await status.following(receiver, device: "/dev/ttyACM0") {
///   await server.serve(receiver, device: "/dev/ttyACM0")
/// }
/// ```
public final class StatusServer: Sendable {
  public struct Configuration: Sendable {
    /// Where to listen: loopback unless an address is named.
    public var host = "127.0.0.1"
    /// The port; 0 picks a free one (see ``port``).
    public var port = StatusServer.defaultPort
    /// The most HTTP clients at once, pages following the live stream included.
    public var maximumClients = 64
    /// How often an open page hears the whole status.
    public var interval: Duration = .seconds(1)

    public init() {}
  }

  /// The port `--http` takes when only an address is named: beside gpsd's 2947.
  public static let defaultPort = 8947

  /// Why the server could not start.
  public struct StartFailure: Error, CustomStringConvertible, Sendable {
    public var description: String
  }

  public let configuration: Configuration
  private let gpsd: GPSDServer
  private let station: Station?
  private let chrony: ChronyWatch?
  private let http: HTTPServer
  private let monitors = Locked<[Int: ReceiverMonitor]>([:])
  private let correctionClients = Locked<[Int: (device: String, client: NTRIPClient)]>([:])
  private let nextMonitor = Locked(0)
  private let started = ContinuousClock.now

  /// A status server for what `gpsd` serves, the time `station` feeds, and what `chrony` says.
  public convenience init(_ configuration: Configuration, gpsd: GPSDServer, station: Station? = nil, chrony: ChronyWatch? = nil) {
    self.init(configuration, gpsd: gpsd, station: station, chrony: chrony, limits: { _ in })
  }

  /// As the public init; `limits` may change the HTTP server's other limits (timeouts, the
  /// queue a client may leave unread), for tests that cannot wait for the real ones.
  package init(
    _ configuration: Configuration, gpsd: GPSDServer, station: Station? = nil, chrony: ChronyWatch? = nil,
    limits: (inout HTTPServer.Configuration) -> Void
  ) {
    self.configuration = configuration
    self.gpsd = gpsd
    self.station = station
    self.chrony = chrony
    var server = HTTPServer.Configuration()
    server.host = configuration.host
    server.port = configuration.port
    server.maximumClients = configuration.maximumClients
    server.serverName = "gpsbridge/\(Release.version)"
    limits(&server)
    let pages = Locked<StatusServer?>(nil)
    http = HTTPServer(configuration: server) { request, counters in
      pages.withLock { $0 }?.respond(to: request, counters: counters) ?? .text(.serviceUnavailable, "Starting.")
    }
    pages.withLock { $0 = self }
  }

  /// Starts listening.
  public func start() throws(StartFailure) {
    do {
      try http.start()
    } catch {
      let address = "\(configuration.host):\(configuration.port)"
      switch error {
      case .system(.addressInUse):
        // Who holds it, as --listen says it: the program a user must stop, or pick around.
        let holder = PortHolder.find(port: configuration.port).map { "\($0)" } ?? "another program"
        throw StartFailure(
          description:
            "Cannot serve the status page on \(address): \(holder) listens there. Stop it, or name another port with --http ADDRESS:PORT.")
      case .system(let errno): throw StartFailure(description: "Cannot serve the status page on \(address): \(errno).")
      case .unknownHost, .lookupUnanswered:
        throw StartFailure(description: "Cannot serve the status page on \(address): the address does not resolve.")
      }
    }
  }

  /// The port listened on.
  public var port: Int? { http.port }

  /// Stops listening and closes every HTTP client.
  public func stop() { http.stop() }

  /// Shows `receiver` (as `device`) on the page and in the metrics while `body` runs, with
  /// its correction stream when it has one.
  public func following<T: Sendable>(
    _ receiver: Receiver, device: String, corrections: NTRIPClient? = nil, during body: () async -> T
  ) async -> T {
    let monitor = ReceiverMonitor(receiver, device: device)
    let id = nextMonitor.withLock { id in
      defer { id += 1 }
      return id
    }
    monitors.withLock { $0[id] = monitor }
    if let corrections { correctionClients.withLock { $0[id] = (device, corrections) } }
    defer {
      monitor.stop()
      monitors.withLock { _ = $0.removeValue(forKey: id) }
      correctionClients.withLock { _ = $0.removeValue(forKey: id) }
    }
    return await body()
  }

  /// The HTTP server's counters (for tests).
  package var httpStatisticsForTesting: HTTPServer.Counters { http.statistics }

  /// The receivers followed now.
  var monitorsNow: [ReceiverMonitor] { monitors.withLock { $0.sorted { $0.key < $1.key }.map(\.value) } }

  /// Sends the whole status to every open page each ``Configuration/interval`` until the task
  /// is cancelled.
  public func run() async {
    while await sleepUnlessCancelled(configuration.interval) {
      guard http.statistics.streams > 0 else { continue }
      http.publish(event: Self.json(status()))
    }
  }

  /// The box now (`web`: the HTTP server's counters, when it is asking).
  package func status(web: HTTPServer.Counters? = nil) -> BoxStatus {
    let counters = gpsd.statistics
    let web = web ?? http.statistics
    let receivers = monitorsNow.map { $0.status() }
    let feeds = station?.clockFeeds ?? []
    return BoxStatus(
      version: "gpsbridge \(Release.version)", uptime: ReceiverMonitor.seconds(started.duration(to: .now)),
      gpsd: .init(clients: counters.clients, watchers: counters.watchers, connections: counters.connections, dropped: counters.dropped),
      http: .init(connections: web.connections, clients: web.clients, streams: web.streams, requests: web.requests, dropped: web.dropped),
      receivers: receivers, timeService: feeds.map { Self.status(of: $0.feed, device: $0.device) }, chrony: chronyStatus(feeds: feeds),
      corrections: correctionClients.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }.map(Self.status))
  }

  private static func status(of stream: (device: String, client: NTRIPClient)) -> CorrectionsStatus {
    let health = stream.client.health
    return CorrectionsStatus(
      device: stream.device, source: stream.client.configuration.address.description, connected: health.connected, state: health.state,
      bytesPerSecond: health.bytesPerSecond, forwarded: health.forwarded, dropped: health.dropped,
      messageTypes: Dictionary(uniqueKeysWithValues: health.messageTypes.map { (String($0.key), $0.value) }), rejects: health.rejects,
      lastFrameAge: health.lastFrameAge, stationID: health.stationID, stationDistance: health.stationDistance, ggaSent: health.ggaSent)
  }

  private static func status(of feed: ClockFeed, device: String) -> TimeServiceStatus {
    let state = feed.state
    let report = feed.report
    let counts = feed.chronyCounts
    return TimeServiceStatus(
      device: device, feeding: state.feeding, notice: state.notice?.description, samples: report?.count ?? 0,
      offset: report.flatMap { $0.isPlausible ? $0.delay : nil }, jitter: report.flatMap { $0.isPlausible ? $0.jitter : nil },
      sent: counts?.sent, dropped: counts?.dropped)
  }

  private func chronyStatus(feeds: [(device: String, feed: ClockFeed)]) -> ChronyStatus? {
    guard let chrony, let latest = chrony.latest else { return nil }
    // A socket chrony does not listen on: chrony has no refclock for it.
    let missing = feeds.compactMap { _, feed -> String? in
      guard let path = feed.chronySocket, let counts = feed.chronyCounts, counts.sent == 0, counts.dropped > 0 else { return nil }
      return
        "chrony has no refclock for \(path): add this line to chrony.conf and restart chrony: 'refclock SOCK \(path) refid GPS poll 2 filter 4 offset 0.0'."
    }
    switch latest {
    case .failure(let failure):
      return ChronyStatus(error: failure.description, referenceClocks: [], usesReferenceClock: false, findings: missing)
    case .success(let check):
      let clocks = check.referenceClocks.map { clock in
        ChronyStatus.Clock(
          name: clock.name, state: Self.stateName(clock), reach: clock.reach, offset: clock.offset, noselect: clock.noselect)
      }
      return ChronyStatus(
        error: nil, referenceClocks: clocks, usesReferenceClock: check.usesReferenceClock, findings: missing + check.findings)
    }
  }

  static func stateName(_ clock: ChronyCheck.Source) -> String {
    if clock.noselect { return "noselect" }
    switch clock.state {
    case "*": return "selected"
    case "+": return "combined"
    case "-": return "not combined"
    case "x": return "falseticker"
    case "~": return "too variable"
    default: return clock.reach == 0 ? "not reachable" : "unusable"
    }
  }

  static func json(_ status: BoxStatus) -> [UInt8] {
    (try? JSONValueEncoder.encode(status)) ?? Array("{}".utf8)
  }

  // MARK: Answers

  private func respond(to request: HTTPRequest, counters: HTTPServer.Counters) -> HTTPResponse {
    func status() -> BoxStatus { self.status(web: counters) }
    switch request.path {
    case "/", "/index.html":
      var page = HTTPResponse(contentType: "text/html; charset=utf-8", body: StatusPage.html(initial: Self.json(status())))
      page.cacheControl = "no-cache"
      return page
    case "/status.json":
      return HTTPResponse(contentType: "application/json", body: Self.json(status()))
    case "/metrics":
      return HTTPResponse(contentType: "text/plain; version=0.0.4; charset=utf-8", body: Array(status().prometheusText.utf8))
    case "/events":
      return .eventStream
    default:
      return .text(.notFound, "Not found. This box answers /, /status.json, /metrics and /events.")
    }
  }
}
