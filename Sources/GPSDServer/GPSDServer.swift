import Dispatch
import Framing
import GPSD
import NMEA
import Plumbing
import Transports

/// A gpsd for the programs people already run: cgps, gpspipe, gpxlogger, Python's `gps`
/// module, libgps programs, OpenCPN. It speaks gpsd's JSON protocol (version 3) on a TCP
/// port and serves the fixes, sentences and bytes it is given (see ``publish(_:)``), so any
/// Swift program can serve its receiver beside its `LocationManager`; ``feed(from:report:)``
/// does it all for a serial receiver, a capture or another gpsd.
///
/// **Clients.** Up to ``Configuration/maximumClients``. Each has its own `WATCH` and its own
/// queue of output; a client whose queue grows past ``Configuration/queueLimit`` (it stopped
/// reading) is disconnected, so it slows neither the receiver nor the others. Only complete
/// requests and watching count as activity: a client that watches nothing and completes no
/// request for ``Configuration/idleTimeout``, or leaves a request incomplete for
/// ``Configuration/requestTimeout``, is closed; when every slot is taken, a newcomer gets the
/// slot of the least active client that has done nothing for ``Configuration/requestTimeout``,
/// else is turned away. Every client closed or turned away reads why first (an ERROR report,
/// then the end, never a reset). The server is read-only: `?DEVICE` requests that would
/// change the receiver are refused.
///
/// All work happens on one serial queue: publishing only schedules it.
public final class GPSDServer: @unchecked Sendable {
  public struct Configuration: Sendable {
    /// Where to listen: 127.0.0.1 unless you mean to share the location with the network.
    public var host = "127.0.0.1"
    /// gpsd's port, 2947; 0 picks a free one (see ``port``).
    public var port = 2947
    /// The most clients at once.
    public var maximumClients = 64
    /// Bytes queued for a client before it is taken to have stopped reading.
    public var queueLimit = 1 << 20
    /// How long a client that watches nothing may go without completing a request.
    public var idleTimeout: Duration = .seconds(60)
    /// How long a request may stay incomplete before its client is closed: a client that
    /// sends a byte now and then of a request that never ends does not hold a slot.
    public var requestTimeout: Duration = .seconds(5)
    /// The `release` the VERSION banner names: the installed gpsd clients' own, so that
    /// xgps and cgps, which compare it with theirs, do not warn (see ``InstalledRelease``).
    public var release = Self.installedRelease
    /// The protocol minor version announced (the major is always 3): the one `release` speaks.
    public var protocolMinor = InstalledRelease.protocolMinor(for: Self.installedRelease)
    /// The `rev` the VERSION banner names: the server's own name and version.
    public var revision = "gpsbridge \(Release.version)"
    /// Requests of gpsbridge's own beyond gpsd's, by name (`"TIMESERVICE"` answers
    /// `?TIMESERVICE;`): each gives the JSON object to answer with, without its line end.
    /// gpsd's clients never send them; they are for people and scripts.
    public var extraRequests: [String: @Sendable () -> String] = [:]
    /// Sources of gpsbridge's own listed after the receivers in `DEVICES`, as gpsd lists its
    /// DGPS sources (an NTRIP correction stream): each gives its `DEVICE` object's JSON. They
    /// count towards libgps's limit (``GPSDServer/maximumReceivers``).
    public var extraDevices: @Sendable () -> [String] = { [] }

    static let installedRelease = InstalledRelease.find() ?? InstalledRelease.fallback

    public init() {}
  }

  /// Why the server could not start.
  public enum StartFailure: Error, Equatable, CustomStringConvertible {
    /// Another program listens on the port: `holder`, when `/proc` shows who.
    case addressInUse(host: String, port: Int, holder: PortHolder?)
    /// The address cannot be listened on: not this machine's, or a port below 1024 without
    /// the right to it.
    case cannotListen(host: String, port: Int, reason: String)

    public var description: String {
      switch self {
      case .addressInUse(let host, let port, let holder):
        Self.inUse(host: host, port: port, holder: holder)
      case .cannotListen(let host, let port, let reason):
        "Cannot listen on \(host):\(port): \(reason)."
      }
    }

    /// Says who holds the port and what to do: gpsd.socket's advice only when it is gpsd, or
    /// systemd holding the port for a socket unit (gpsd.socket, on a box with gpsd installed).
    static func inUse(host: String, port: Int, holder: PortHolder?) -> String {
      let elsewhere = "or use --listen with another port."
      let gpsdAdvice =
        "Stop it, and keep it stopped, with 'sudo systemctl disable --now gpsd.socket gpsd.service', \(elsewhere)"
      switch holder?.name {
      case "gpsd":
        return
          "\(host):\(port) is in use by gpsd (pid \(holder!.processID)); on Debian, systemd's gpsd.socket starts it on demand. \(gpsdAdvice)"
      case "systemd":
        return
          "\(host):\(port) is held by systemd (pid \(holder!.processID)) for a socket unit, which starts its service on the first connection ('systemctl list-sockets' names it). If it is Debian's gpsd.socket: \(gpsdAdvice)"
      case let name?:
        return "\(host):\(port) is in use by \(name) (pid \(holder!.processID)). Stop that program, \(elsewhere)"
      case nil:
        return
          "\(host):\(port) is in use by a program this user cannot see ('sudo ss -ltnp sport = :\(port)' names it). If it is gpsd: \(gpsdAdvice)"
      }
    }
  }

  public let configuration: Configuration
  let queue = DispatchQueue(label: "gpsbridge.gpsd-server")
  // The state below is touched on `queue` only.
  /// The sockets clients connect to: one, or those a service manager handed over.
  private var listeners: [FileDescriptor] = []
  private var acceptSources: [any DispatchSourceRead] = []
  private var idleTimer: (any DispatchSourceTimer)?
  /// The clients, their slots and queues (see ``ClientRegistry``).
  private var registry: ClientRegistry<GPSDSession>
  var clients: Dictionary<Int, Client>.Values { registry.clients }
  /// The receivers served, in the order they first appeared; a receiver that went away
  /// stays listed (not present) so it keeps its place.
  private var receivers: [Served] = []
  /// The listeners that feed the served receivers in, and what the clients watch besides
  /// fixes (see GPSDServer+Feed.swift).
  var feeds: [Feed] = []
  var watched: Receiver.Interests = []

  /// One receiver as served.
  struct Served {
    var path: String
    /// Its DEVICE, while it is there.
    var device: ServedDevice?
    var latestFix: Fix?
    /// What the receiver says of jamming and its antenna (nothing, for most).
    var integrity = SignalIntegrity()
    /// The last state told to INTEGRITY watchers.
    var integritySaid: SignalIntegrity?
    /// gpsd's computed figures for its fixes (they need the fix before).
    var errorModel = GPSDErrorModel()
    /// The time of its latest dated fix, and the last step between two: a step seen twice in
    /// a row is its cycle, which DEVICE says.
    var lastFixTime: Int64?
    var lastStep: Int64?

    /// Takes a fix's time; the cycle, seconds, when it has just become known or changed.
    mutating func learnCycle(from fix: Fix) -> Double? {
      guard let time = fix.timestamp?.nanosecondsSince1970 else { return nil }
      defer { lastFixTime = time }
      guard let lastFixTime, time > lastFixTime, time - lastFixTime <= 60_000_000_000 else { return nil }
      let step = time - lastFixTime
      defer { lastStep = step }
      guard let lastStep, abs(step - lastStep) * 100 <= step, let device else { return nil }
      let cycle = Double(step) / 1e9
      return abs(cycle - device.cycle) * 100 > device.cycle ? cycle : nil
    }
  }

  /// The index of the receiver at `path` (`nil`: the first, or a receiver with no name of its
  /// own, "gpsbridge"), made when it is first heard of.
  private func receiverIndex(_ path: String?) -> Int {
    let name = path ?? receivers.first?.path ?? "gpsbridge"
    if let index = receivers.firstIndex(where: { $0.path == name }) { return index }
    receivers.append(Served(path: name))
    return receivers.count - 1
  }

  /// The receivers there now.
  private var presentDevices: [ServedDevice] { receivers.compactMap(\.device) }
  private var reports = JSONWriter(capacity: 4096)
  private var counters = Counters()

  /// What the server has done, for a status line.
  public struct Counters: Hashable, Sendable {
    /// Clients connected now.
    public var clients = 0
    /// Clients watching now (their `?WATCH` enabled).
    public var watchers = 0
    /// Clients connected since the start.
    public var connections = 0
    /// Clients closed for not reading or for being one too many.
    public var dropped = 0
    /// Fixes served.
    public var fixes = 0
  }

  public init(configuration: Configuration = .init()) {
    self.configuration = configuration
    registry = ClientRegistry(queue: queue, maximumClients: configuration.maximumClients, queueLimit: configuration.queueLimit)
    registry.onLeave = { [unowned self] _ in clientsChanged() }
  }

  deinit {
    for source in acceptSources { source.cancel() }
    idleTimer?.cancel()
  }

  /// Starts listening. Clients are served from now until ``stop()``.
  public func start() throws(StartFailure) {
    let socket: FileDescriptor
    do {
      socket = try FileDescriptor.listenTCP(host: configuration.host, port: configuration.port)
    } catch {
      switch error {
      case .system(.addressInUse):
        throw .addressInUse(host: configuration.host, port: configuration.port, holder: PortHolder.find(port: configuration.port))
      case .system(let errno): throw .cannotListen(host: configuration.host, port: configuration.port, reason: errno.description)
      case .unknownHost, .lookupUnanswered:
        throw .cannotListen(host: configuration.host, port: configuration.port, reason: "the address does not resolve")
      }
    }
    listen(on: [socket])
  }

  /// Starts serving on sockets already listening, handed over by a service manager (systemd's
  /// socket activation: ``SocketActivation``): TCP sockets are served gpsd's protocol; a Unix
  /// socket, as Debian's `gpsd.socket` hands over for gpsd's control channel (hotplug's
  /// `gpsdctl add`), is answered `ERROR`: this server takes no devices from it.
  public func start(adopting descriptors: [Int32]) {
    listen(on: descriptors.map(FileDescriptor.init(rawValue:)))
  }

  private func listen(on sockets: [FileDescriptor]) {
    queue.sync {
      listeners = sockets
      for socket in sockets {
        _ = fcntl(socket.rawValue, F_SETFL, fcntl(socket.rawValue, F_GETFL) | O_NONBLOCK)
        let control = socket.isUnixSocket
        let source = DispatchSource.makeReadSource(fileDescriptor: socket.rawValue, queue: queue)
        source.setEventHandler { [weak self] in self?.acceptWaiting(on: socket, control: control) }
        source.setCancelHandler { try? socket.close() }
        source.resume()
        acceptSources.append(source)
      }
      let timer = DispatchSource.makeTimerSource(queue: queue)
      timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1))
      timer.setEventHandler { [weak self] in self?.closeIdleClients() }
      timer.resume()
      idleTimer = timer
    }
  }

  /// The port listened on (useful after asking for port 0).
  public var port: Int? { queue.sync { listeners.lazy.compactMap(\.localPort).first } }

  /// What has happened so far.
  public var statistics: Counters {
    queue.sync {
      var counters = self.counters
      counters.clients = registry.count
      counters.connections = registry.connections
      counters.dropped = registry.dropped
      counters.watchers = clients.filter(\.watch.enable).count
      return counters
    }
  }

  /// Whether the server's queue still turns and it still listens: its queue runs a block
  /// within `timeout` (for a watchdog). No thread waits: the answer is whichever comes first,
  /// the queue's block or a timer's.
  package func isResponsive(within timeout: Duration) async -> Bool {
    let deadline = DispatchTime.now() + timeout.dispatchInterval
    return await withCheckedContinuation { continuation in
      let answered = Locked(false)
      @Sendable func answer(_ responsive: Bool) {
        let first = answered.withLock { answered in
          let first = !answered
          answered = true
          return first
        }
        if first { continuation.resume(returning: responsive) }
      }
      DispatchQueue.global().asyncAfter(deadline: deadline) { answer(false) }
      queue.async { [self] in
        answer(!acceptSources.isEmpty && acceptSources.allSatisfy { !$0.isCancelled })
      }
    }
  }

  /// Blocks the server's queue for `duration`: for a watchdog's tests only.
  package func freezeForTesting(_ duration: Duration) {
    queue.async {
      let (seconds, attoseconds) = duration.components
      var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
      _ = nanosleep(&time, nil)
    }
  }

  /// Stops listening and closes every client.
  public func stop() {
    queue.sync {
      for source in acceptSources { source.cancel() }
      acceptSources.removeAll()
      listeners.removeAll()
      idleTimer?.cancel()
      idleTimer = nil
      registry.closeAll()
    }
  }

  // MARK: What is served

  /// The most receivers one server should serve: libgps 3.22 (cgps, xgps, libgps programs)
  /// loops forever on a DEVICES report that lists more than four.
  public static let maximumReceivers = 4

  /// What a receiver gives a server. Events name their receiver by its path (`device`); with
  /// one receiver it may be left out.
  public enum Event: Sendable {
    /// The receiver is there (again): `path` as clients will see it, its speed if known,
    /// seconds between fixes, and whether it is a replay or the simulator (`DEVICE` says so).
    case deviceAppeared(path: String, bitsPerSecond: Int?, cycle: Double, simulated: Bool = false)
    /// The receiver went away.
    case deviceWentAway(device: String? = nil)
    /// The receiver's serial speed is known (autobaud found it): DEVICE says it again.
    case deviceSpeed(Int, device: String? = nil)
    /// One epoch's fix: TPV, and SKY, GST and ATT as it has them, to clients watching JSON.
    case fix(Fix, device: String? = nil)
    /// What the receiver says of jamming and its antenna now: the TPVs after it carry gpsd's
    /// `ant`, `antPwr` and `jam`, and clients watching JSON with `"integrity":true` get an
    /// INTEGRITY object.
    case integrity(SignalIntegrity, device: String? = nil)
    /// One sentence as the receiver sent it (without its line end), to clients watching NMEA.
    case sentence([UInt8], device: String? = nil)
    /// Bytes as they came, to clients watching `raw:2`.
    case bytes([UInt8], device: String? = nil)
    /// An object of gpsbridge's own (a REGION or VISIT report, its JSON without the line
    /// end), to clients watching JSON with `"regions":true`.
    case regionReport(String, device: String? = nil)
    /// A SWITCH object (the virtual `best` receiver moved to another receiver), its JSON
    /// without the line end, to clients watching JSON with `"switches":true`.
    case switchReport(String, device: String? = nil)
  }

  /// Serves `event` to the clients that watch for it, before returning: on the caller's
  /// thread when the server is idle (dispatch runs it there), so an epoch reaches the clients'
  /// sockets without waiting for another thread to wake. Not to be called from the server's
  /// own callbacks.
  public func publish(_ event: Event) {
    queue.sync { handle(event) }
  }

  private func handle(_ event: Event) {
    reports.removeAll()
    switch event {
    case .deviceAppeared(let path, let bitsPerSecond, let cycle, let simulated):
      let index = receiverIndex(path)
      receivers[index].errorModel = GPSDErrorModel()
      // What a receiver plugged in says of its antenna is its own: until it says it, nothing.
      receivers[index].integrity = SignalIntegrity()
      receivers[index].integritySaid = nil
      announce(
        ServedDevice(path: path, activated: .nowToTheMillisecond, bitsPerSecond: bitsPerSecond, cycle: cycle, isSimulated: simulated),
        at: index)
    case .deviceSpeed(let bitsPerSecond, let path):
      let index = receiverIndex(path)
      guard var served = receivers[index].device, served.bitsPerSecond != bitsPerSecond else { return }
      served.bitsPerSecond = bitsPerSecond
      announce(served, at: index)
    case .deviceWentAway(let path):
      let index = receiverIndex(path)
      guard let served = receivers[index].device else { return }
      receivers[index].device = nil
      GPSDReport.device(GPSDReport.Device(path: served.path, activated: "0")).write(into: &reports)
      broadcast(about: served.path, to: { $0.enable })
    case .fix(let fix, let path):
      let index = receiverIndex(path)
      receivers[index].latestFix = fix
      counters.fixes += 1
      let name = receivers[index].path
      if let cycle = receivers[index].learnCycle(from: fix), var served = receivers[index].device {
        served.cycle = cycle
        announce(served, at: index)
      }
      for report in receivers[index].errorModel.reports(for: fix, device: name) {
        guard case .tpv(var tpv) = report else {
          report.write(into: &reports)
          continue
        }
        tpv.mark(with: receivers[index].integrity)
        GPSDReport.tpv(tpv).write(into: &reports)
      }
      broadcast(about: name, to: \.wantsReports)
    case .integrity(let integrity, let path):
      let index = receiverIndex(path)
      receivers[index].integrity = integrity
      // A change of the jamming indicator alone goes out in the TPVs, not as news.
      guard !(receivers[index].integritySaid.map { integrity.saysTheSameStates(as: $0) } ?? false) else { return }
      receivers[index].integritySaid = integrity
      integrity.writeReport(device: receivers[index].path, into: &reports)
      broadcast(about: receivers[index].path, to: \.wantsIntegrity)
    case .sentence(let sentence, let path):
      for byte in sentence { reports.append(ascii: byte) }
      reports.append(ascii: 0x0D)
      reports.append(ascii: 0x0A)
      broadcast(about: receivers[receiverIndex(path)].path, to: \.wantsSentences)
    case .bytes(let bytes, let path):
      let name = receivers[receiverIndex(path)].path
      for client in clients where client.watch.wantsBytes && client.watch.accepts(name) { send(bytes, to: client) }
    case .regionReport(let object, let path):
      reports.write(object)
      reports.append(ascii: 0x0D)
      reports.append(ascii: 0x0A)
      broadcast(about: receivers[receiverIndex(path)].path, to: \.wantsRegions)
    case .switchReport(let object, let path):
      reports.write(object)
      reports.append(ascii: 0x0D)
      reports.append(ascii: 0x0A)
      broadcast(about: receivers[receiverIndex(path)].path, to: \.wantsSwitches)
    }
  }

  /// Makes `device` the receiver's at `index` and tells every watcher of it in a DEVICE report.
  private func announce(_ device: ServedDevice, at index: Int) {
    receivers[index].device = device
    reports.removeAll()
    GPSDReport.device(device.report).write(into: &reports)
    broadcast(about: device.path, to: { $0.enable })
    reports.removeAll()
  }

  /// Sends what `reports` holds, about the receiver at `path`, to every client whose watch
  /// `wants` it and takes that receiver.
  private func broadcast(about path: String, to wants: (GPSDWatch) -> Bool) {
    guard !reports.bytes.isEmpty else { return }
    for client in clients where wants(client.watch) && client.watch.accepts(path) { send(reports.bytes, to: client) }
  }

  // MARK: Clients

  private func acceptWaiting(on listener: FileDescriptor, control: Bool) {
    if control {
      while let socket = try? listener.accept() { answerControl(socket) }
      return
    }
    let now = ContinuousClock.now
    registry.acceptWaiting(
      on: listener, session: { GPSDSession() },
      received: { [unowned self] client, bytes in received(bytes, from: client) },
      // The client that has done least for longest goes to make room, if it has done nothing
      // for a while (no complete request for the request time-out, or a request incomplete).
      mayGo: { [configuration] client in
        !client.watch.enable && (client.incompleteSince != nil || client.lastHeard.duration(to: now) > configuration.requestTimeout)
      },
      makeRoom: farewell("Closed to make room for another client: no complete request for a while."),
      full: farewell("Too many clients: at most \(configuration.maximumClients) at once."),
      welcome: { [unowned self] client in
        var banner = JSONWriter()
        version.write(into: &banner)
        registry.send(banner.bytes, to: client)
      })
  }

  /// gpsd's control channel (`gpsdctl add /dev/ttyUSB0`): refused, and closed.
  private func answerControl(_ socket: FileDescriptor) {
    Array("ERROR\n".utf8).withUnsafeBytes { _ = try? socket.sendSome($0) }
    shutdown(socket.rawValue, Int32(SHUT_WR))
    try? socket.close()
  }

  /// gpsd's ERROR report of `message`: why a client is let go.
  private func farewell(_ message: String) -> [UInt8] {
    var farewell = JSONWriter()
    GPSDReport.error(.init(message: message)).write(into: &farewell)
    return farewell.bytes
  }

  /// Tells `client` why it goes, in gpsd's ERROR report, and lets it go: it reads the reason,
  /// not a reset.
  private func dismiss(_ client: Client, saying message: String, counted: Bool = true) {
    registry.dismiss(client, farewell: farewell(message), counted: counted)
  }

  private func received(_ bytes: UnsafeRawBufferPointer, from client: Client) {
    client.session.requests.append(bytes)
    var reply = JSONWriter()
    var completed = false
    while let request = client.session.requests.next() {
      completed = true
      answer(request, for: client, into: &reply)
      guard registry.client(client.id) != nil else { return }  // dismissed: its farewell is on its way
    }
    registry.heard(client, completed: completed, pending: client.session.requests.bufferedByteCount)
    if !reply.bytes.isEmpty { send(reply.bytes, to: client) }
  }

  /// The VERSION banner and answer.
  private var version: GPSDReport {
    .version(
      GPSDReport.Version(
        release: configuration.release, revision: configuration.revision, protocolMajor: GPSDReport.protocolMajor,
        protocolMinor: configuration.protocolMinor))
  }

  /// DEVICES: every receiver there now. (libgps 3.22 loops forever on more than 4 devices:
  /// `gpsbridge serve` serves at most ``maximumReceivers``.)
  private var devices: GPSDReport { .devices(GPSDReport.Devices(devices: presentDevices.map(\.report))) }

  /// Writes DEVICES, with the configuration's own devices after the receivers.
  private func writeDevices(into reply: inout JSONWriter) {
    let extra = configuration.extraDevices()
    guard !extra.isEmpty, case .devices(let list) = devices else { return devices.write(into: &reply) }
    reply.line { list.writeFields(into: &$0, appending: extra) }
  }

  private func answer(_ output: GPSDRequestReader.Output, for client: Client, into reply: inout JSONWriter) {
    func error(_ message: String) { GPSDReport.error(.init(message: message)).write(into: &reply) }
    switch output {
    case .request(.version):
      version.write(into: &reply)
    case .request(.devices):
      writeDevices(into: &reply)
    case .request(.watch(let change)):
      if let change {
        if let wanted = change.device, !receivers.contains(where: { $0.path == wanted }) {
          error("No such device as \(wanted)")
          return
        }
        client.watch = client.watch.applying(change)
        clientsChanged()
      }
      // As gpsd: the device list, then the watch, in one write.
      writeDevices(into: &reply)
      GPSDReport.watch(client.watch).write(into: &reply)
      // Asked: what each receiver has said of its signals so far, then each change.
      if change != nil, client.watch.wantsIntegrity {
        for receiver in receivers where receiver.integrity.hasSpoken && client.watch.accepts(receiver.path) {
          receiver.integrity.writeReport(device: receiver.path, into: &reply)
        }
      }
    case .request(.poll):
      poll.write(into: &reply)
    case .request(.device(let object)):
      // Read as JSON, as gpsd reads it: an escaped key changes nothing of the answer.
      let request = object.map { GPSDDeviceRequest(json: $0) } ?? GPSDDeviceRequest(json: "{}")
      guard let request else {
        error("Invalid DEVICE: not a JSON object.")
        return
      }
      guard !request.changesSettings else {
        error("gpsbridge serves its receiver read-only: it does not change the device's settings.")
        return
      }
      // The one named, else the first there.
      let named = request.path
      guard let device = presentDevices.first(where: { named == nil || $0.path == named }) else {
        error(named.map { "No such device as \($0)" } ?? "Can't perform DEVICE configuration, no devices attached.")
        return
      }
      GPSDReport.device(device.report).write(into: &reply)
    case .invalid(let reason):
      error(reason)
    case .unrecognized(let text):
      if let answer = Self.requestName(text).flatMap({ configuration.extraRequests[$0] }) {
        reply.write(answer() + "\r\n")
        return
      }
      error("Unrecognized request '\(text.prefix(GPSDRequestReader.maximumEcho))'")
    case .tooLong:
      dismiss(client, saying: "Request too long: more than \(GPSDRequestReader.maximumPending) bytes without a complete request.")
    }
  }

  /// POLL: each receiver's latest TPV, GST and SKY, as lists, with the time of asking.
  private var poll: GPSDReport {
    var poll = GPSDReport.Poll(time: UTCTimestamp.nowToTheMillisecond.description, active: 0, tpv: [], gst: [], sky: [])
    for receiver in receivers {
      guard let fix = receiver.latestFix, let device = receiver.device else { continue }
      poll.active = (poll.active ?? 0) + 1
      var tpv = GPSDReport.TPV(fix, device: device.path)
      tpv.mark(with: receiver.integrity)
      poll.tpv?.append(tpv)
      poll.gst?.append(GPSDReport.GST(fix, device: device.path))
      poll.sky?.append(GPSDReport.SKY(fix, device: device.path))
    }
    return .poll(poll)
  }

  /// `NAME` of a bare `?NAME;` request.
  private static func requestName(_ text: String) -> String? {
    guard text.hasPrefix("?") else { return nil }
    let name = text.dropFirst().prefix { $0 != ";" && $0 != "\r" && $0 != "\n" }
    return name.isEmpty || !name.allSatisfy({ $0.isLetter }) ? nil : String(name)
  }

  private func send(_ bytes: [UInt8], to client: Client) { registry.send(bytes, to: client) }

  /// Once a second: clients silent too long, or stuck on a request that never ends, are
  /// told so and closed; clients told so a moment ago are closed for good.
  private func closeIdleClients() {
    let now = ContinuousClock.now
    for client in Array(clients) {
      if let since = client.incompleteSince, since.duration(to: now) > configuration.requestTimeout {
        dismiss(client, saying: "Request incomplete for \(configuration.requestTimeout): closed.")
      } else if !client.watch.enable, client.lastHeard.duration(to: now) > configuration.idleTimeout {
        dismiss(client, saying: "No request for \(configuration.idleTimeout): closed.", counted: false)
      }
    }
    registry.sweep(now: now)
  }
}

extension UTCTimestamp {
  /// The system clock's time now, to the millisecond, as gpsd's reports carry it.
  static var nowToTheMillisecond: UTCTimestamp {
    UTCTimestamp(nanosecondsSince1970: WallClock.now.nanosecondsSince1970 / 1_000_000 * 1_000_000)
  }
}
