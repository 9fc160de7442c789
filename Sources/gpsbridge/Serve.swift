import Corrections
import GPSD
import GPSDServer
import GPSLocation
import NMEA
import Station
import StatusService
import TimeService

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `gpsbridge serve`: a receiver (or a capture, or another gpsd) served to gpsd's clients
/// until Ctrl-C, a capture's end, or a cause that cannot go away. The receivers are a
/// ``Station``'s: this command listens, says what happens, and hands each to the server.
func serve(_ options: ServeOptions) async -> Int32 {
  // Sockets systemd handed over (socket activation) are served as they are; else --listen.
  let handedOver: [Int32]?
  do {
    handedOver = try SocketActivation.takeListeningSockets()
  } catch {
    Terminal.diagnostic("Error: \(error)")
    return 1
  }
  // Each --device is one receiver, or with wildcards every receiver that matches; without
  // any, the one source the station's policy chooses (gpsd is no choice for a server that
  // may be taking its place on its port).
  var station = Station.Configuration(
    baudRate: options.source.baudRate,
    clock: options.servesTime ? ClockFeed.Outputs(chrony: options.chrony, sharedMemoryUnit: options.ntpSharedMemory) : nil,
    maximumReceivers: maximumReceivers(best: options.best))
  // Without a source named, every receiver plugged in, now or later: a service never makes up
  // a fix, so the demo drive is served only when named (--demo).
  if options.devices.isEmpty, let chosen = await options.source.resolved(gpsd: nil, discovery: .ofThisMachine) {
    if chosen.isDemo {
      Terminal.diagnostic("gpsbridge: serving the simulated demo drive (--demo), not a receiver: its fixes say so (TPV status 8).")
    }
    var source = chosen.source
    if options.loop, case .replay(let capture, let speed, _) = source { source = .replay(capture, speed: speed, loops: true) }
    station.sources = [Station.Source(source, name: chosen.name, pulses: options.pps.first)]
  } else if options.devices.isEmpty {
    station.discovery = .ofThisMachine
  }
  for (index, path) in options.devices.enumerated() {
    let pps = index < options.pps.count ? options.pps[index] : nil
    if let pattern = try? DevicePattern(path) {
      station.patterns.append(Station.Pattern(pattern, pulses: pps))
    } else {
      station.sources.append(Station.Source(.serial(path: path, baudRate: options.source.baudRate), name: path, pulses: pps))
    }
  }
  let name =
    (station.sources.map(\.name) + station.patterns.map { "every receiver matching '\($0.pattern)'" }
    + (station.discovery == nil ? [] : ["every receiver plugged in"]))
    .joined(separator: " and ")
  let said = Shared<ServeStatus?>(nil)
  // What is said goes above the status line once it is drawn, to stderr before.
  let say: @Sendable (String) -> Void = { message in
    if let status = said.withLock({ $0 }) { status.say(message) } else { Terminal.diagnostic(message) }
  }
  let receivers = Station(station, said: say)

  // chrony is asked now and then whether it uses the time fed (when chronyc is there to ask).
  // Regions and visits on the box (--regions, --visits), and where they go (--mqtt).
  var regions: [Region] = []
  for file in options.zones.regionFiles {
    do {
      regions += try readRegions(file)
    } catch {
      Terminal.diagnostic("Error: \(error)")
      return 1
    }
  }
  let outlets: ActionOutlets
  do {
    outlets = try ActionOutlets(
      mqtt: options.zones.mqtt.configuration, webhooks: options.zones.webhooks, sendsLocations: false,
      say: say)
  } catch {
    Terminal.diagnostic("Error: --webhook: \(error)")
    return 1
  }
  // With --best, regions and visits follow best unless --regions-device names another.
  var zoneOptions = options.zones
  if options.best, zoneOptions.device == nil { zoneOptions.device = BestReceiver.name }
  let zones = ServeZones(regions: regions, options: zoneOptions, outlets: outlets)
  if let problem = await zones.checkStorage() {
    Terminal.diagnostic("Error: \(problem) (--state-dir DIR keeps them elsewhere; --state-dir none, nowhere.)")
    return 1
  }
  let chrony = options.servesTime && ChronyCheck.isChronycInstalled ? ChronyWatch(control: options.chronyControl) : nil
  var configuration = GPSDServer.Configuration()
  configuration.host = options.listen.host
  configuration.port = options.listen.port
  // `?TIMESERVICE;` answers what the time service has measured so far.
  configuration.extraRequests["TIMESERVICE"] = { receivers.timeServiceReport(chrony: chrony?.latest) }
  // A correction stream (--ntrip) is listed in ?DEVICES with its health, as gpsd lists its own.
  let corrections = options.corrections.configuration.map { CorrectionStreams($0, said: say) }
  configuration.extraDevices = { corrections?.clients.map(\.gpsdDevice) ?? [] }
  let server = GPSDServer(configuration: configuration)
  let listening: String
  if let sockets = handedOver {
    if case .gpsd(let gpsd) = options.source,
      isOwnAddress(gpsd, listening: sockets.compactMap { localPort(of: $0).map { GPSDAddress(host: "", port: $0) } })
    {
      Terminal.diagnostic("Error: \(servingItself(gpsd)) (The port is one of the sockets systemd handed over.)")
      return 1
    }
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
  // The box as a page and metrics with --http; followed anyway, for the watchdog.
  var pageConfiguration = StatusServer.Configuration()
  if let http = options.http {
    pageConfiguration.host = http.host
    pageConfiguration.port = http.port
  }
  let page = StatusServer(pageConfiguration, gpsd: server, station: receivers, chrony: chrony)
  if let http = options.http {
    do {
      try page.start()
    } catch {
      Terminal.diagnostic("Error: \(error)")
      return 1
    }
    if !isLoopback(http.host) {
      Terminal.diagnostic(
        "gpsbridge: warning: the status page listens on \(http), beyond this machine: anyone who can reach it can read your location.")
    }
    Terminal.diagnostic(
      "gpsbridge: status page at http://\(http.host.contains(":") ? "[\(http.host)]" : http.host):\(page.port ?? http.port)/ (metrics at /metrics)."
    )
  }
  defer { page.stop() }
  SocketActivation.notify("READY=1")

  Terminal.diagnostic("gpsbridge: serving \(name) to gpsd clients on \(listening); stop with Ctrl-C.")
  let status = ServeStatus(server: server, name: name)
  said.withLock { $0 = status }
  let drawing = Task { await status.run() }
  defer { drawing.cancel() }
  let publishing = options.http == nil ? nil : Task { await page.run() }
  defer { publishing?.cancel() }
  let asking = chrony.map { chrony in
    Task {
      await chrony.run(
        samplesSent: { receivers.clockFeeds.reduce(0) { $0 + ($1.feed.chronyCounts?.sent ?? 0) } },
        said: { status.say("gpsbridge: " + $0) })
    }
  }
  defer { asking?.cancel() }
  // WATCHDOG=1 only while gpsbridge itself is healthy (see Watchdog).
  let watchdog = SocketActivation.watchdogInterval.map { interval in
    Task {
      await Watchdog(status: page, gpsd: server, station: receivers).run(
        every: interval, notify: { SocketActivation.notify($0) }, said: { status.say($0) })
    }
  }
  defer { watchdog?.cancel() }
  // RTK corrections to the receiver (--ntrip names one receiver), for as long as it is served.
  var streamCorrections: (@Sendable (Station.Member) async throws -> Void)?
  if let corrections {
    streamCorrections = { member in
      let client = corrections.client(for: member)
      defer { corrections.remove(member) }
      status.say("gpsbridge: corrections for \(member.name) from \(client.configuration.address).")
      try await client.run()
    }
  }
  // NMEA 0183 out (--nmea-tcp, --nmea-udp): best's, a named receiver's, or the first served.
  let nmea: NMEAOutput?
  if options.nmea.tcp != nil || options.nmea.udp != nil {
    do {
      nmea = try NMEAOutput(options.nmea)
    } catch {
      Terminal.diagnostic("Error: \(error)")
      return 1
    }
    if let tcp = options.nmea.tcp, !isLoopback(tcp.host) {
      Terminal.diagnostic(
        "gpsbridge: warning: --nmea-tcp listens on \(tcp), beyond this machine: anyone who can reach it can read your location.")
    }
  } else {
    nmea = nil
  }
  defer { nmea?.stop() }
  let nmeaDevice = options.nmeaDevice ?? (options.best ? BestReceiver.name : nil)
  // Without a device named, the first receiver served is the one whose NMEA goes out (until
  // it is gone: then the next one served).
  let nmeaClaimed = Shared<String?>(nmeaDevice)
  // --best: a virtual receiver that follows the best of the others, served beside them.
  let best =
    options.best
    ? BestReceiver(said: { status.say($0) }, switched: { server.publish(.switchReport($0.gpsdObject, device: BestReceiver.name)) })
    : nil
  let servingBest = best.map { best in
    Task {
      // On the status page too, as a receiver of its own.
      async let served: Void = page.following(best.receiver, device: BestReceiver.name) {
        await server.serve(best.receiver, device: BestReceiver.name)
      }
      async let sent: Void = {
        if nmeaDevice == BestReceiver.name { await nmea?.follow(best.receiver, writingFromFixes: true) }
      }()
      if zones.follows(BestReceiver.name) {
        await zones.follow(best.receiver, device: BestReceiver.name, server: server, status: status)
      }
      await served
      await sent
    }
  }
  defer { servingBest?.cancel() }
  let outputs = Station.Outputs(
    gpsd: { member in
      let serving = { @Sendable in
        await server.serve(member.receiver, device: member.source.device, bitsPerSecond: member.source.bitsPerSecond)
      }
      let device = member.source.device
      let sendsNMEA =
        nmea != nil
        && nmeaClaimed.withLock { claimed in
          if claimed == nil { claimed = device }
          return claimed == device
        }
      let sending = sendsNMEA ? Task { await nmea?.follow(member.receiver, writingFromFixes: false) } : nil
      defer {
        sending?.cancel()
        // The first served gone, the next one served is the one sent (not one named).
        if sendsNMEA, options.nmeaDevice == nil { nmeaClaimed.withLock { if $0 == device { $0 = nil } } }
      }
      if let best { await best.following(member.receiver, name: device, while: serving) } else { await serving() }
    },
    page: { member, serving in
      let stream = corrections?.client(for: member)
      await page.following(member.receiver, device: member.source.device, corrections: stream) { await serving() }
    },
    corrections: streamCorrections,
    zones: { member in
      guard zones.follows(member.source.device) else { return }
      await zones.follow(member.receiver, device: member.source.device, server: server, status: status)
    },
    admitted: { member in sayWhatHappens(to: member.receiver, name: member.name, status: status) },
    say: { status.say($0) })
  do {
    try await receivers.serve(outputs)
  } catch {
    status.say("Error: \(error)")
    return 1
  }
  // The broker hears what is queued, `offline` and a clean DISCONNECT before serve ends.
  await outlets.stop()
  drawing.cancel()
  await drawing.value
  status.say()
  return receivers.hasStoppedReceiver ? 1 : 0
}

/// The NTRIP clients of `serve --ntrip`, one for each receiver served while it is served: the
/// corrections stream into it, the page shows it, `?DEVICES` lists it.
final class CorrectionStreams: Sendable {
  let configuration: NTRIPClient.Configuration
  private let said: @Sendable (String) -> Void
  private let streams = Shared<[String: NTRIPClient]>([:])

  init(_ configuration: NTRIPClient.Configuration, said: @escaping @Sendable (String) -> Void) {
    self.configuration = configuration
    self.said = said
  }

  /// The client of `member`, made when first asked for.
  func client(for member: Station.Member) -> NTRIPClient {
    streams.withLock { streams in
      if let client = streams[member.name] { return client }
      let client = NTRIPClient(configuration, receiver: member.receiver, said: said)
      streams[member.name] = client
      return client
    }
  }

  func remove(_ member: Station.Member) { streams.withLock { _ = $0.removeValue(forKey: member.name) } }

  /// The clients now.
  var clients: [NTRIPClient] { streams.withLock { $0.sorted { $0.key < $1.key }.map(\.value) } }
}

/// Says on stderr what happens to `receiver` (named `name`): problems, pauses, notices, and
/// its fix quality as it moves (GPS, DGPS, RTK float, RTK fixed, and back).
func sayWhatHappens(to receiver: Receiver, name: String, status: ServeStatus) {
  followFixQuality(of: receiver) { from, to in status.say("gpsbridge: \(name): the fix went from \(from.name) to \(to.name).") }
  // A cause that stays the same through the reconnection's attempts is said once, until
  // something else happens (it said "is not a serial device" every 5 s).
  let lastProblem = Shared<String?>(nil)
  receiver.observe(wanting: [.fixes]) { event in
    switch event {
    case .status(.failed(let error)), .status(.paused(let error)), .status(.ended(let error)):
      let message = "gpsbridge: \(error.message)"
      guard lastProblem.withLock({ $0 }) != message else { return }
      lastProblem.withLock { $0 = message }
      status.say(message)
    case .status(.stopped(let error)):
      status.say("Error: \(error.message)")
    case .status(.resumed):
      lastProblem.withLock { $0 = nil }
      status.say("gpsbridge: \(name) is back.")
    case .notice(let notice):
      status.say("gpsbridge: \(notice)")
    default:
      break
    }
  }
}

/// The port a listening socket is bound to.
func localPort(of socket: Int32) -> Int? {
  var address = sockaddr_storage()
  var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
  let status = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
  }
  guard status == 0 else { return nil }
  // (sin_port and sin6_port are both the two bytes after the family, in network order.)
  guard [AF_INET, AF_INET6].contains(Int32(address.ss_family)) else { return nil }
  return withUnsafeBytes(of: address) { Int(UInt16(bigEndian: $0.load(fromByteOffset: 2, as: UInt16.self))) }
}

func isLoopback(_ host: String) -> Bool {
  host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
}

/// The server's state on stderr, redrawn in place each second on a terminal: clients, fixes,
/// rate. Messages go above it.
final class ServeStatus: Sendable {
  let server: GPSDServer
  let name: String
  private let shown = Shared(false)

  init(server: GPSDServer, name: String) {
    self.server = server
    self.name = name
  }

  func run() async {
    guard Terminal.standardErrorIsTerminal else { return }
    var lastFixes = 0
    while await sleepOrCancel(.seconds(1)) {
      let counters = server.statistics
      let rate = counters.fixes - lastFixes
      lastFixes = counters.fixes
      let line =
        "\u{1B}[7m \(name.escapingControlCharacters) │ \(counters.clients) client\(counters.clients == 1 ? "" : "s") │ \(counters.fixes) fixes │ \(rate) Hz \u{1B}[0m"
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
