import Corrections
import GPSD
import GPSDServer
import GPSLocation
import Station
import StatusService
import TimeService

/// What `gpsbridge serve` was asked to do.
struct ServeOptions: Equatable {
  var source = SourceChoice.automatic
  /// Receivers served beside the first (`--device` given more than once).
  var moreDevices: [String] = []
  var listen = GPSDAddress.standard
  /// chrony's SOCK refclock socket for the receiver's NMEA time.
  var chrony: String?
  /// The NTP shared-memory unit for the receiver's NMEA time.
  var ntpSharedMemory: Int?
  /// Where each receiver's pulse-per-second edges come from: the first `--pps` is the first
  /// `--device`'s, and so on.
  var pps: [PulseSource] = []
  /// Whether a replay starts over at its end (`--loop`).
  var loop = false
  /// Where the status page, `/metrics` and `/status.json` are served (`--http`), if anywhere.
  var http: GPSDAddress?
  /// chrony's command socket, asked now and then whether chrony uses the time fed.
  var chronyControl = ChronyCheck.defaultControl
  /// Where RTK corrections come from (`--ntrip`), and how often the receiver's GGA goes up.
  var corrections = CorrectionOptions()
  /// Regions and visits on the box, and where they go.
  var zones = ZoneOptions()
  /// Whether a virtual receiver named `best` follows the best of the receivers (`--best`).
  var best = false
  /// NMEA 0183 out over the network (`--nmea-tcp`, `--nmea-udp`, `--nmea-broadcast`), and
  /// whose (`--nmea-device`; `best` with --best, else the first receiver served).
  var nmea = NMEAOutput.Configuration()
  var nmeaDevice: String?

  /// Whether the receivers' time feeds the system clock.
  var servesTime: Bool { chrony != nil || ntpSharedMemory != nil }

  /// Every `--device` given, in order.
  var devices: [String] {
    guard case .device(let path, _) = source else { return [] }
    return [path] + moreDevices
  }

  struct Draft {
    var sources = SourceDraft()
    var listen: GPSDAddress?
    var chrony: String?
    var ntpSharedMemory: Int?
    var pps: [PulseSource] = []
    var loop = false
    var http: GPSDAddress?
    var chronyControl: String?
    var corrections = CorrectionOptions()
    var zones = ZoneOptions()
    var best = false
    var nmea = NMEAOutput.Configuration()
    var nmeaDevice: String?
  }

  /// `--http`'s value: a port on loopback, or an address with or without a port.
  static func httpAddress(_ value: String) -> GPSDAddress? { address(value, defaultPort: StatusServer.defaultPort) }

  /// `--nmea-tcp`'s value, the same way (10110, IANA's port for NMEA 0183 over the network).
  static func nmeaAddress(_ value: String) -> GPSDAddress? { address(value, defaultPort: 10110) }

  /// A port on loopback, or an address with or without a port (then `defaultPort`).
  static func address(_ value: String, defaultPort: Int) -> GPSDAddress? {
    if let port = Int(value) { return (1...65535).contains(port) ? GPSDAddress(host: "127.0.0.1", port: port) : nil }
    guard var address = GPSDAddress(parsing: value) else { return nil }
    let hasPort = value.hasPrefix("[") ? value.drop { $0 != "]" }.hasPrefix("]:") : value.contains(":")
    if !hasPort { address.port = defaultPort }
    return address
  }

  static let spec = CommandSpec<Draft>(
    topic: .serve,
    overview: "Serve a receiver to gpsd's clients (cgps, gpspipe, libgps programs).",
    discussion: """
      Speaks gpsd's JSON protocol, so programs written for gpsd read this receiver as
      if gpsd were running, while Swift programs use the LocationManager. With no
      source it serves every GPS receiver plugged in, now or later, and until then
      says that it waits and serves no fix: it never makes one up (--demo serves the
      simulated drive; a replay's and the demo's fixes say status 8). Give --device
      more than once to serve several receivers from one port, or give it a path
      with wildcards (quoted) to serve every receiver whose name matches, as it is
      plugged in; at most 4 receivers. With several, each feeds its own refclocks:
      the --chrony path with the device's name before .sock, the --ntp-shm unit plus
      2 for each receiver before it (in the order they are served), and the n-th --pps
      belongs to the n-th --device. Listening beyond 127.0.0.1 shares your location
      with the network: only when --listen names such an address. A --replay plays from
      the moment serve starts, at its own pace, whether or not a client is connected, as
      a receiver would: a client sees it from wherever it has got to. Without --loop,
      serve ends at the capture's end; with it, the capture plays again from its
      beginning, so clients that come later still get fixes. With --best, a virtual
      receiver named best follows, epoch by epoch, the best of the others (alive, no
      interference, the better fix, the smaller stated error; a switch needs a better fix
      held 5 s, or an error under half held 30 s, so noise never flips it) and is served
      beside them (then at most 3 real receivers).
      """,
    options: SourceDraft.options(replay: true, gpsdHelp: "Serve another gpsd's fixes again.").map { $0.lifted(\Draft.sources) }
      .map { $0.names == ["--device"] ? $0.repeating() : $0 } + [
        CommandOption(
          names: ["--loop"], value: nil, help: "With --replay of a file: play it again from its beginning each time it ends."
        ) { draft, _ in draft.loop = true }.attached(to: "--replay"),
        CommandOption(
          names: ["--best"], value: nil,
          help:
            "Also serve a virtual receiver named best that follows the best of the receivers, epoch by epoch, without jumps at a switch (watch it with ?WATCH={\"device\":\"best\"}; \"switches\":true adds a SWITCH object at each move)."
        ) { draft, _ in draft.best = true },
        CommandOption(
          names: ["--nmea-tcp"], value: "<[address:]port>",
          help:
            "Also send a receiver's NMEA 0183 to TCP clients that connect here (port 10110 is NMEA's own), as marine software (OpenCPN) reads it: best's written from its fixes (GGA, RMC, GSA, GSV, VTG, ZDA), a real receiver's as it sent them. 127.0.0.1 unless an address is named."
        ) { draft, value throws(UsageError) in
          guard let value, let address = nmeaAddress(value) else {
            throw UsageError(message: "--nmea-tcp takes a port (10110) or ADDRESS[:PORT]; got '\(value ?? "")'.", topic: .serve)
          }
          draft.nmea.tcp = address
        },
        CommandOption(
          names: ["--nmea-udp"], value: "<host:port>", help: "Also send that NMEA 0183 as UDP datagrams to <host:port>."
        ) { draft, value throws(UsageError) in
          guard let value, value.contains(":"), let address = GPSDAddress(parsing: value) else {
            throw UsageError(message: "--nmea-udp takes HOST:PORT, like 192.168.1.255:10110; got '\(value ?? "")'.", topic: .serve)
          }
          draft.nmea.udp = address
        },
        CommandOption(
          names: ["--nmea-broadcast"], value: nil, help: "Allow --nmea-udp to send to a broadcast address."
        ) { draft, _ in draft.nmea.broadcast = true }.attached(to: "--nmea-udp"),
        CommandOption(
          names: ["--nmea-device"], value: "<path|best>",
          help: "Whose NMEA --nmea-tcp and --nmea-udp send: best with --best, else the first receiver served, unless named."
        ) { draft, value in draft.nmeaDevice = value },
        CommandOption(
          names: ["--listen"], value: "<address[:port]>", help: "Where gpsd's clients connect.",
          defaultValue: GPSDAddress.standard.description
        ) { draft, value throws(UsageError) in
          guard let value, let address = GPSDAddress(parsing: value) else {
            throw UsageError(
              message: "--listen takes ADDRESS[:PORT], like 127.0.0.1:2947 (IPv6 in brackets); got '\(value ?? "")'.", topic: .serve)
          }
          draft.listen = address
        },
        CommandOption(
          names: ["--chrony"], value: "<path>",
          help:
            "Send the receiver's NMEA time to chrony's SOCK refclock at <path> (chrony.conf: refclock SOCK <path>). chrony may start before or after."
        ) { draft, value throws(UsageError) in
          guard let value, value.utf8.count <= ClockFeed.longestSocketPath else {
            throw UsageError(
              message:
                "--chrony names a socket of at most \(ClockFeed.longestSocketPath) bytes (a Unix socket's address holds no more); got \(value?.utf8.count ?? 0). Use a shorter path, like /run/chrony.gps.sock.",
              topic: .serve)
          }
          draft.chrony = value
        },
        CommandOption(
          names: ["--ntp-shm"], value: "<unit>",
          help:
            "Write the receiver's NMEA time to NTP shared-memory unit <unit> (key 0x4E545030+unit) for ntpd or chrony's refclock SHM. Units 0 and 1 are root's only (0600); from 2 any local user may write them (0666)."
        ) { draft, value throws(UsageError) in
          guard let value, let unit = Int(value), (0...255).contains(unit) else {
            throw UsageError(message: "--ntp-shm takes a unit number from 0 to 255, like 2; got '\(value ?? "")'.", topic: .serve)
          }
          draft.ntpSharedMemory = unit
        },
        CommandOption(
          names: ["--pps"], value: "<source>",
          help:
            "Also feed the receiver's pulse per second: a kernel PPS device (/dev/pps0), or the serial port's dcd or cts line; 'simulated' pulses on each second of this machine's clock, for trying. The pulses go to their own refclock: the --chrony path with -pps before .sock, the --ntp-shm unit plus one."
        ) { draft, value throws(UsageError) in
          guard let value, let source = PulseSource(parsing: value) else {
            throw UsageError(message: "--pps takes a PPS device (/dev/pps0), dcd, cts or simulated; got '\(value ?? "")'.", topic: .serve)
          }
          draft.pps.append(source)
        }.repeating(),
        CommandOption(
          names: ["--http"], value: "<[address:]port>",
          help:
            "Serve a live status page (/), Prometheus metrics (/metrics) and /status.json on this port of 127.0.0.1, or on the address named (port \(StatusServer.defaultPort) when none is given). Off unless asked for."
        ) { draft, value throws(UsageError) in
          guard let value, let address = httpAddress(value) else {
            throw UsageError(
              message: "--http takes a port (8947) or ADDRESS[:PORT] (127.0.0.1:8947, IPv6 in brackets); got '\(value ?? "")'.",
              topic: .serve)
          }
          draft.http = address
        },
        CommandOption(
          names: ["--chrony-control"], value: "<path>",
          help:
            "chrony's command socket, as chronyc -h takes it: with --chrony or --ntp-shm, serve asks chrony there whether it uses the time (every 5 s until it does, then every 30 s), and says what to fix.",
          defaultValue: ChronyCheck.defaultControl
        ) { draft, value in draft.chronyControl = value },
      ] + CorrectionOptions.options(topic: .serve).map { $0.lifted(\Draft.corrections) }
      + ZoneOptions.options(topic: .serve).map { $0.lifted(\Draft.zones) },
    examples: [
      "gpsbridge serve",
      "gpsbridge serve --device /dev/ttyACM0",
      "gpsbridge serve --replay drive.nmea --loop --listen 127.0.0.1:2948 & gpspipe -w -n 10 127.0.0.1:2948",
      "gpsbridge serve --device /dev/ttyACM0 --chrony /run/chrony.gps.sock",
      "gpsbridge serve --device /dev/serial/by-id/usb-gps-if00 --device /dev/ttyUSB1",
      "gpsbridge serve --device '/dev/serial/by-id/*u-blox*'",
      "gpsbridge serve --device /dev/ttyACM0 --http 8947",
    ])

  static func parse(_ arguments: ArraySlice<String>) throws(UsageError) -> Command {
    var draft = Draft()
    guard try spec.parse(arguments, into: &draft) else { return .help(.serve) }
    let source = try draft.sources.choice(topic: .serve)
    if !draft.pps.isEmpty, draft.chrony == nil, draft.ntpSharedMemory == nil {
      throw UsageError(message: "--pps feeds the refclocks of --chrony or --ntp-shm: name one.", topic: .serve)
    }
    try checkReceivers([draft.sources.device].compactMap { $0 } + draft.sources.moreDevices, pps: draft.pps, best: draft.best)
    if draft.best {
      switch source {
      case .device, .automatic: break
      case .replay, .gpsd, .demo:
        throw UsageError(
          message:
            "--best follows the best of several receivers: give --device more than once, or a pattern ('/dev/serial/by-id/*'), or no source to serve every receiver plugged in.",
          topic: .serve)
      }
      if case .device(let path, _) = source, draft.sources.moreDevices.isEmpty, !DevicePattern.hasWildcard(path) {
        throw UsageError(
          message: "--best follows the best of several receivers, and \(path) is one: give --device more than once, or a pattern.",
          topic: .serve)
      }
    }
    if draft.loop {
      guard case .replay(let path, _) = source else {
        throw UsageError(message: "--loop plays a capture again: it goes with --replay FILE.", topic: .serve)
      }
      if path == "-" {
        throw UsageError(message: "--loop cannot play standard input again: it is read once. Give --replay a file.", topic: .serve)
      }
    }
    if case .gpsd(let gpsd) = source, isOwnAddress(gpsd, listening: [draft.listen ?? .standard]) {
      throw UsageError(message: servingItself(gpsd), topic: .serve)
    }
    if let http = draft.http, isOwnAddress(http, listening: [draft.listen ?? .standard]) {
      throw UsageError(
        message: "--http \(http) is where gpsd's clients connect (--listen): give the status page a port of its own.", topic: .serve)
    }
    if draft.corrections.ntrip != nil {
      guard case .device(let path, _) = source, draft.sources.moreDevices.isEmpty, !DevicePattern.hasWildcard(path) else {
        throw UsageError(
          message: "--ntrip sends corrections to one receiver: give exactly one --device (a serial port, which can be written to).",
          topic: .serve)
      }
    }
    if draft.nmeaDevice != nil, draft.nmea.tcp == nil, draft.nmea.udp == nil {
      throw UsageError(message: "--nmea-device names whose NMEA goes out: give --nmea-tcp or --nmea-udp too.", topic: .serve)
    }
    if draft.nmeaDevice == "best", !draft.best {
      throw UsageError(message: "--nmea-device best sends the best receiver's NMEA: give --best too.", topic: .serve)
    }
    let named = [draft.sources.device].compactMap { $0 } + draft.sources.moreDevices
    if let device = draft.nmeaDevice, device != "best", !named.isEmpty, !named.contains(device),
      !named.contains(where: DevicePattern.hasWildcard)
    {
      throw UsageError(
        message:
          "--nmea-device \(device) is not a receiver served: name one of the --device paths\(draft.best ? ", or best" : "") (as written there).",
        topic: .serve)
    }
    // A replay's regions and the demo's are judged afresh each time (the same events every
    // run), unless --state-dir is given; a receiver's are kept.
    if !draft.zones.storageGiven {
      switch source {
      case .replay, .demo: draft.zones.storage = .none
      case .device, .automatic, .gpsd: break
      }
    }
    try draft.corrections.check(topic: .serve)
    try draft.zones.mqtt.check(topic: .serve)
    if draft.zones.device != nil, !draft.zones.isEnabled {
      throw UsageError(
        message: "--regions-device names the receiver whose regions and visits are followed: give --regions, --visits or --mqtt too.",
        topic: .serve)
    }
    if draft.chronyControl != nil, draft.chrony == nil, draft.ntpSharedMemory == nil {
      throw UsageError(message: "--chrony-control asks chrony about the time fed with --chrony or --ntp-shm: name one.", topic: .serve)
    }
    if draft.chrony != nil || draft.ntpSharedMemory != nil {
      switch source {
      case .device, .automatic: break
      case .replay, .gpsd, .demo:
        throw UsageError(
          message: "--chrony and --ntp-shm need a receiver on a serial port (--device): only its bytes arrive in time with the second.",
          topic: .serve)
      }
    }
    return .serve(
      ServeOptions(
        source: source, moreDevices: draft.sources.moreDevices, listen: draft.listen ?? .standard, chrony: draft.chrony,
        ntpSharedMemory: draft.ntpSharedMemory, pps: draft.pps, loop: draft.loop, http: draft.http,
        chronyControl: draft.chronyControl ?? ChronyCheck.defaultControl, corrections: draft.corrections, zones: draft.zones,
        best: draft.best, nmea: draft.nmea, nmeaDevice: draft.nmeaDevice))
  }

  /// The receivers named (`--device`, with wildcards or not) and their pulses: at most as
  /// many as gpsd's clients can list, wildcards only in a device's own name, one `--pps` at
  /// most for each `--device`, and no kernel PPS device shared by all a pattern matches.
  /// With `best`, the virtual receiver takes one place of the list.
  static func checkReceivers(_ devices: [String], pps: [PulseSource], best: Bool = false) throws(UsageError) {
    if devices.count > maximumReceivers(best: best) {
      throw UsageError(
        message:
          "serve takes at most \(maximumReceivers(best: best)) receivers\(best ? " beside best" : ""): gpsd's clients (libgps 3.22) hang on a longer device list.",
        topic: .serve)
    }
    for path in devices {
      do throws(DevicePatternError) {
        _ = try DevicePattern(path)
      } catch {
        throw UsageError(message: "--device \(error)", topic: .serve)
      }
    }
    if pps.count > max(devices.count, 1) {
      throw UsageError(
        message: "--pps is given \(pps.count) times for \(max(devices.count, 1)) --device: the n-th --pps is the n-th receiver's.",
        topic: .serve)
    }
    for (path, pulses) in zip(devices, pps) where DevicePattern.hasWildcard(path) {
      if case .device(let device) = pulses {
        throw UsageError(
          message: "--pps \(device) cannot be the pulse of every receiver '\(path)' matches: give dcd or cts (each receiver's own line).",
          topic: .serve)
      }
    }
  }
}

/// The most real receivers served: gpsd's clients list 4, and `best` is one of them.
func maximumReceivers(best: Bool) -> Int { GPSDServer.maximumReceivers - (best ? 1 : 0) }

/// Whether `gpsd` is one of the addresses this server listens on: the same port, on this
/// machine (a loopback address, or any address when the server listens on all of them).
func isOwnAddress(_ gpsd: GPSDAddress, listening: [GPSDAddress]) -> Bool {
  let wildcard = ["0.0.0.0", "::", ""]
  return listening.contains { own in
    own.port == gpsd.port
      && (own.host == gpsd.host || (isLoopback(gpsd.host) && (isLoopback(own.host) || wildcard.contains(own.host)))
        || (wildcard.contains(gpsd.host) && (isLoopback(own.host) || wildcard.contains(own.host))))
  }
}

/// Why `serve --gpsd` at its own address is refused.
func servingItself(_ gpsd: GPSDAddress) -> String {
  "--gpsd \(gpsd) is where this server listens itself: it would read its own output and serve it again. Name the other gpsd's address, or move this server with --listen, like --listen 127.0.0.1:\(gpsd.port == 65535 ? 2948 : gpsd.port + 1)."
}
