import GPSD
import GPSDServer
import GPSLocation
import NMEASimulation
import Plumbing
import TimeService
import Transports

/// `gpsbridge serve`: a receiver (or a capture, or another gpsd) served to gpsd's clients
/// until Ctrl-C, a capture's end, or a cause that cannot go away.
func serve(_ options: ServeOptions) async -> Int32 {
  var configuration = GPSDServer.Configuration()
  configuration.host = options.listen.host
  configuration.port = options.listen.port
  configuration.revision = "gpsbridge \(version)"
  // `?TIMESERVICE;` answers what the time service has measured so far.
  let published = Locked<ServedReceivers?>(nil)
  configuration.extraRequests["TIMESERVICE"] = {
    timeServiceReport(published.withLock { $0 }?.clockFeeds.withLock { $0 } ?? [])
  }
  let server = GPSDServer(configuration: configuration)
  // Sockets systemd handed over (socket activation) are served as they are; else --listen.
  let listening: String
  let handedOver: [Int32]?
  do {
    handedOver = try SocketActivation.takeListeningSockets()
  } catch {
    Terminal.diagnostic("Error: \(error)")
    return 1
  }
  if let sockets = handedOver {
    server.start(adopting: sockets)
    listening = "the \(sockets.count == 1 ? "socket" : "\(sockets.count) sockets") systemd handed over"
  } else {
    if !isLoopback(options.listen.host) {
      Terminal.diagnostic(
        "gpsbridge: warning: listening on \(options.listen), beyond this machine: anyone who can reach it can read your location.")
    }
    do {
      try server.start()
    } catch {
      Terminal.diagnostic("Error: \(error)")
      return 1
    }
    listening = options.listen.description
  }
  defer {
    SocketActivation.notify("STOPPING=1")
    server.stop()
  }
  SocketActivation.notify("READY=1")
  let watchdog = SocketActivation.watchdogInterval.map { interval in
    Task {
      while await sleepUnlessCancelled(interval) { SocketActivation.notify("WATCHDOG=1") }
    }
  }
  defer { watchdog?.cancel() }

  // Each --device is one receiver, or with wildcards every receiver that matches; without
  // any, the one source chosen (the receiver found, a replay, another gpsd).
  var named: [(GPSDServer.Source, String, PulseSource?)] = []
  var patterns: [(DevicePattern, PulseSource?)] = []
  if options.devices.isEmpty {
    let (source, name) = servedSource(options.source)
    named = [(source, name, options.pps.first)]
  }
  for (index, path) in options.devices.enumerated() {
    let pps = index < options.pps.count ? options.pps[index] : nil
    if let pattern = try? DevicePattern(path) {
      patterns.append((pattern, pps))
    } else {
      named.append((.serial(path: path, baudRate: options.source.baudRate), path, pps))
    }
  }
  let name = (named.map(\.1) + patterns.map { "every receiver matching '\($0.0)'" }).joined(separator: " and ")
  Terminal.diagnostic("gpsbridge: serving \(name) to gpsd clients on \(listening); stop with Ctrl-C.")
  let status = ServeStatus(server: server, name: name)
  let receivers = ServedReceivers(server: server, options: options, status: status)
  published.withLock { $0 = receivers }
  var admitted: [ServedReceivers.Admitted] = []
  for (source, name, pps) in named {
    do {
      if let receiver = try receivers.admit(source, name: name, pps: pps) { admitted.append(receiver) }
    } catch {
      Terminal.diagnostic("Error: \(error)")
      for receiver in admitted { receiver.clock?.cancel() }
      return 1
    }
  }
  let drawing = Task { await status.run() }
  await receivers.run(admitted, patterns: patterns)
  drawing.cancel()
  await drawing.value
  status.say()
  return receivers.outcome.withLock { $0 }
}

/// Says on stderr what happens to `receiver` (named `name`): problems, pauses, notices; a
/// cause that cannot go away makes the exit status 1.
func sayWhatHappens(to receiver: Receiver, name: String, status: ServeStatus, outcome: Locked<Int32>) {
  receiver.listen(wanting: []) { event in
    switch event {
    case .status(.failed(let error)), .status(.paused(let error)), .status(.ended(let error)):
      status.say("gpsbridge: \(error.message)")
    case .status(.stopped(let error)):
      status.say("Error: \(error.message)")
      outcome.withLock { $0 = 1 }
    case .status(.resumed):
      status.say("gpsbridge: \(name) is back.")
    case .notice(let notice):
      status.say("gpsbridge: \(notice)")
    default:
      break
    }
  }
}

/// The answer to `?TIMESERVICE;`: whether the receivers' time feeds the clock, and what has
/// been measured of it so far (the same figures the minute's report gives on stderr): one
/// line for each receiver that feeds it, naming its device.
func timeServiceReport(_ feeds: [(device: String, feed: ClockFeed)]) -> String {
  guard !feeds.isEmpty else { return #"{"class":"TIMESERVICE","active":false}"# }
  return feeds.map { device, feed in
    var writer = JSONWriter(capacity: 256)
    writer.beginObject()
    writer.field("class", "TIMESERVICE")
    writer.field("device", device)
    writer.field("active", true)
    let state = feed.state
    writer.field("feeding", state.feeding)
    if let notice = state.notice { writer.field("notice", notice.description) }
    let report = feed.report
    writer.field("samples", report?.count ?? 0)
    if let report {
      // A delay beyond a second is no latency: it is said as such, and never advised.
      if report.isPlausible {
        writer.field("delay", report.delay, decimals: 6)
        writer.field("jitter", report.jitter, decimals: 6)
      } else {
        writer.field("warning", report.summary)
      }
      writer.field("against", report.against)
      if let line = feed.chronyConfiguration(report).first { writer.field("chrony", line) }
    }
    if let counts = feed.chronyCounts {
      writer.field("sent", counts.sent)
      writer.field("dropped", counts.dropped)
    }
    writer.endObject()
    return writer.string
  }.joined(separator: "\r\n")
}

/// The source to serve, and its name for people.
func servedSource(_ choice: SourceChoice) -> (GPSDServer.Source, String) {
  switch choice {
  case .device(let path, let baud):
    return (.serial(path: path, baudRate: baud), path)
  case .replay(let path, let speed):
    return (.replay(.file(path), speed: speed), path == "-" ? "a replay of standard input" : "a replay of \(path)")
  case .gpsd(let address):
    return (.gpsd(host: address.host, port: address.port), "gpsd \(address)")
  case .automatic:
    if let device = DeviceDiscovery().preferredReceiver()?.path {
      return (.serial(path: device, baudRate: .automatic), device)
    }
    Terminal.diagnostic("gpsbridge: no receiver found, so this serves the simulated demo drive; name one with --device PATH.")
    return (.replay(.simulated(.demoDrive), speed: .realTime), "the demo drive (simulated)")
  }
}

func isLoopback(_ host: String) -> Bool {
  host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
}

/// The server's state on stderr, redrawn in place each second on a terminal: clients, fixes,
/// rate. Messages go above it.
final class ServeStatus: Sendable {
  let server: GPSDServer
  let name: String
  private let shown = Locked(false)

  init(server: GPSDServer, name: String) {
    self.server = server
    self.name = name
  }

  func run() async {
    guard Terminal.standardErrorIsTerminal else { return }
    var lastFixes = 0
    while await sleepUnlessCancelled(.seconds(1)) {
      let counters = server.statistics
      let rate = counters.fixes - lastFixes
      lastFixes = counters.fixes
      let line =
        "\u{1B}[7m \(name) │ \(counters.clients) client\(counters.clients == 1 ? "" : "s") │ \(counters.fixes) fixes │ \(rate) Hz \u{1B}[0m"
      shown.withLock { shown in
        Terminal.writeError("\r\u{1B}[K" + line)
        shown = true
      }
    }
  }

  /// Clears the status line, then writes `message` (if any) on its own line where it was.
  func say(_ message: String? = nil) {
    shown.withLock { shown in
      if shown { Terminal.writeError("\r\u{1B}[K") }
      shown = false
      if let message { Terminal.diagnostic(message) }
    }
  }
}
