// What `gpsbridge serve` holds, measured on the built program with real parts:
//
// - clients: a 10 Hz receiver on a pseudo-terminal, N clients (default 64) watching JSON;
//   the TPVs each client got per second, and the server's CPU and memory: peak RSS, and PSS
//   and Private_Dirty from /proc/PID/smaps_rollup (what it costs beside shared libraries);
// - latency: from the write of an epoch's last byte to the pty to a client's TPV for that
//   epoch, p50/p99, for `gpsbridge serve` and for Debian's gpsd on the same kind of pty
//   (`gpsd -N -n -b`), in alternating rounds so both see the same machine;
// - a stuck client: a capture replayed at 20 times real time (200 epochs/s) to a client that
//   never reads and one that does; the server's RSS over the run, against the same run
//   without the stuck client, and whether the stuck one was dropped.
//
// Sections 1 and 2 also measure `serve --http` with its status page open and Prometheus
// scraping `/metrics` every second (the real Prometheus when it is installed), and, when
// Mosquitto is installed, `serve --regions --mqtt` publishing to a Mosquitto of its own (a
// location a second, the Home Assistant tracker, the actions).
//
//   swift build -c release --product gpsbridge
//   swift run -c release serve-benchmark [--clients N] [--seconds S] [--rounds N] [--gpsbridge PATH]
//
// --gpsbridge measures another build of the program, such as Scripts/install's
// (`Scripts/install --build-only` prints its path).
//
// Defaults: 64 clients for 20 s, 2 latency rounds of 15 s per server (about three minutes).
import Foundation
import Synchronization
import TestHelpers

struct Settings {
  var clients = 64, seconds = 20, rounds = 2
  var gpsbridge: String?
  /// Only what Scripts/check-budgets reads: section 1 for `serve` (with and without --webhook)
  /// and gpsd, and section 2 for `serve` and gpsd.
  var budget = false

  static func parse(_ arguments: [String]) -> Settings {
    var settings = Settings()
    var arguments = arguments[...]
    while let argument = arguments.popFirst() {
      if argument == "--budget" {
        settings.budget = true
        continue
      }
      let value = arguments.popFirst()
      switch (argument, value.flatMap(Int.init)) {
      case ("--clients", let number?): settings.clients = number
      case ("--seconds", let number?): settings.seconds = number
      case ("--rounds", let number?): settings.rounds = number
      case ("--gpsbridge", _) where value != nil: settings.gpsbridge = value
      default:
        say("USAGE: serve-benchmark [--clients N] [--seconds S] [--rounds N] [--gpsbridge PATH] [--budget]")
        exit(64)
      }
    }
    return settings
  }
}
let settings = Settings.parse(Array(CommandLine.arguments.dropFirst()))
let clientCount = settings.clients, seconds = settings.seconds, rounds = settings.rounds

let buildDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
let gpsbridge = settings.gpsbridge ?? buildDirectory.appendingPathComponent("gpsbridge").path
guard FileManager.default.isExecutableFile(atPath: gpsbridge) else {
  say("Error: \(gpsbridge) is missing; build it first: swift build -c release --product gpsbridge")
  exit(1)
}
let gpsd = ["/usr/sbin/gpsd", "/usr/bin/gpsd"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// `serve` following the receiver's regions and publishing to a Mosquitto of its own, a
/// location every second; `nil` without Mosquitto.
func bridgeWithMQTT(device: String) throws -> Server? {
  guard let mosquitto = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"].first(where: FileManager.default.isExecutableFile) else { return nil }
  let (port, brokerPort) = (FakeGPSD.freePort(), FakeGPSD.freePort())
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-benchmark-mqtt-\(getpid())-\(brokerPort)")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  try "listener \(brokerPort) 127.0.0.1\nallow_anonymous true\n".write(
    to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
  // Around where the receiver drives (48°07.0', 11°31.0'): it starts inside.
  try #"[{"identifier":"home","center":{"latitude":48.1167,"longitude":11.5167},"radius":100}]"#.write(
    to: directory.appendingPathComponent("regions.json"), atomically: true, encoding: .utf8)
  let broker = Process()
  broker.executableURL = URL(fileURLWithPath: mosquitto)
  broker.arguments = ["-c", directory.appendingPathComponent("mosquitto.conf").path]
  broker.standardOutput = FileHandle.nullDevice
  broker.standardError = FileHandle.nullDevice
  try broker.run()
  usleep(300_000)
  var server = try Server.start(
    "gpsbridge serve, --regions --mqtt", gpsbridge,
    [
      "serve", "--device", device, "--baud", "115200", "--listen", "127.0.0.1:\(port)", "--regions",
      directory.appendingPathComponent("regions.json").path, "--visits", "--mqtt", "mqtt://127.0.0.1:\(brokerPort)/bench",
      "--mqtt-interval", "1",
    ], port: port)
  server.watchers.append {
    kill(broker.processIdentifier, SIGKILL)
    broker.waitUntilExit()
    try? FileManager.default.removeItem(at: directory)
  }
  return server
}

// MARK: The receiver

/// One 10 Hz epoch, GST last: RMC, GGA, GSA, three GSV, GST. Its time is `index` tenths of a
/// second after midnight on 1 May 2024.
func epoch(_ index: Int) -> [UInt8] {
  let tenths = index % 864_000
  let second = tenths / 10
  func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
  let time = two(second / 3600) + two(second / 60 % 60) + two(second % 60) + ".\(tenths % 10)0"
  let latitude = "4807.\(String(10_000 + index % 10_000).dropFirst())"
  var bodies = [
    "GNRMC,\(time),A,\(latitude),N,01131.0000,E,10.000,45.00,010524,,,A",
    "GNGGA,\(time),\(latitude),N,01131.0000,E,1,12,0.90,500.0,M,47.3,M,,",
    "GNGSA,A,3,02,05,07,09,13,15,18,20,,,,,1.60,0.90,1.30",
  ]
  for page in 1...3 {
    let satellites = (0..<4).map { slot in
      let number = (page - 1) * 4 + slot + 2
      return "\(two(number)),\(20 + number * 3),\(number * 25 % 360),\(30 + number)"
    }
    bodies.append("GPGSV,3,\(page),12," + satellites.joined(separator: ","))
  }
  bodies.append("GNGST,\(time),1.0,2.0,1.5,30.0,1.8,1.6,3.0")
  var bytes: [UInt8] = []
  let hex = Array("0123456789ABCDEF".utf8)
  for body in bodies {
    let checksum = body.utf8.reduce(0, ^)
    bytes += [UInt8(ascii: "$")] + Array(body.utf8) + [UInt8(ascii: "*"), hex[Int(checksum >> 4)], hex[Int(checksum & 15)], 0x0D, 0x0A]
  }
  return bytes
}

/// Writes an epoch every 100 ms, each in one write, noting when.
final class Receiver: Sendable {
  let terminal: PseudoTerminal
  let written = Mutex<[Int: ContinuousClock.Instant]>([:])
  init() throws {
    terminal = try PseudoTerminal()
    chmod(terminal.slavePath, 0o666)  // gpsd started as root reads as the gpsd user
  }

  func play(until end: ContinuousClock.Instant) async {
    var index = 0
    var next = ContinuousClock.now
    while next < end {
      terminal.write(epoch(index))
      let now = ContinuousClock.now
      written.withLock { $0[index] = now }
      index += 1
      next += .milliseconds(100)
      try? await Task.sleep(until: next)
    }
  }
}

// MARK: Servers and clients

@Sendable func connect(port: Int, receiveBuffer: Int32? = nil) -> Int32? {
  let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  if var size = receiveBuffer { setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = in_port_t(UInt16(port).bigEndian)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  let result = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
  }
  if result != 0 {
    close(socket)
    return nil
  }
  return socket
}

/// A server process; stopped with SIGTERM.
struct Server {
  let name: String
  let process: Process
  let port: Int
  /// What watches it beside its clients (an open status page, Prometheus), stopped first.
  var watchers: [() -> Void] = []

  static func start(_ name: String, _ executable: String, _ arguments: [String], port: Int) throws -> Server {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    for _ in 0..<200 {
      if let socket = connect(port: port) {
        close(socket)
        return Server(name: name, process: process, port: port)
      }
      usleep(20_000)
    }
    process.terminate()
    throw POSIXError(.ETIMEDOUT)
  }

  /// SIGTERM, and SIGKILL after two seconds (gpsd does not always end on SIGTERM).
  func stop() {
    for stop in watchers { stop() }
    process.terminate()
    for _ in 0..<100 where process.isRunning { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }

  /// User plus system CPU seconds so far.
  var cpuSeconds: Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
    return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// A `/proc/PID/smaps_rollup` figure in kB: Pss (its share of shared pages), Private_Dirty
  /// (memory it alone has written: what it really costs the machine).
  func rollup(_ key: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/smaps_rollup", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") })
    else { return 0 }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
  }

  /// A `/proc/PID/status` figure in kB: VmRSS now, VmHWM the peak.
  func memory(_ key: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") })
    else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
  }
}

func bridge(device: String) throws -> Server {
  let port = FakeGPSD.freePort()
  return try Server.start(
    "gpsbridge serve", gpsbridge, ["serve", "--device", device, "--baud", "115200", "--listen", "127.0.0.1:\(port)"], port: port)
}

/// `serve` with a webhook to a port where nothing listens: what `--webhook` costs a server that
/// has nothing to post yet (libcurl is loaded at the first post).
func bridgeWithWebhook(device: String) throws -> Server {
  let port = FakeGPSD.freePort()
  return try Server.start(
    "gpsbridge serve --webhook", gpsbridge,
    [
      "serve", "--device", device, "--baud", "115200", "--listen", "127.0.0.1:\(port)", "--webhook",
      "http://127.0.0.1:\(FakeGPSD.freePort())/hook",
    ], port: port)
}

/// `serve` with its status page open (the page's requests, then its event stream read as a
/// browser reads it) and Prometheus scraping `/metrics` every second (the real one when it is
/// installed; else the same requests made here).
func bridgeWatched(device: String) throws -> Server {
  let (port, httpPort) = (FakeGPSD.freePort(), FakeGPSD.freePort())
  var server = try Server.start(
    "gpsbridge serve, page open, scraped each second", gpsbridge,
    ["serve", "--device", device, "--baud", "115200", "--listen", "127.0.0.1:\(port)", "--http", "127.0.0.1:\(httpPort)"],
    port: port)
  let page = PageReader(port: httpPort)
  server.watchers.append(page.stop)
  if let prometheus = ["/usr/bin/prometheus", "/usr/local/bin/prometheus"].first(where: FileManager.default.isExecutableFile) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serve-benchmark-prometheus-\(getpid())-\(httpPort)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let configuration = directory.appendingPathComponent("prometheus.yml")
    try """
    scrape_configs:
      - job_name: gpsbridge
        scrape_interval: 1s
        static_configs:
          - targets: ["127.0.0.1:\(httpPort)"]
    """.write(to: configuration, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: prometheus)
    process.arguments = [
      "--config.file=\(configuration.path)", "--storage.tsdb.path=\(directory.appendingPathComponent("data").path)",
      "--web.listen-address=127.0.0.1:\(FakeGPSD.freePort())",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    server.watchers.append {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      try? FileManager.default.removeItem(at: directory)
    }
  } else {
    let scraper = PageReader(port: httpPort, scraping: true)
    server.watchers.append(scraper.stop)
  }
  return server
}

/// A status page open in a browser, as the server sees it: the page, then its event stream
/// read as it comes; or, `scraping`, `/metrics` fetched every second.
final class PageReader: @unchecked Sendable {
  private let stopped = Mutex(false)

  init(port: Int, scraping: Bool = false) {
    Thread { [self] in
      if scraping {
        while !stopped.withLock({ $0 }) {
          fetch("/metrics", port: port)
          usleep(1_000_000)
        }
      } else {
        fetch("/", port: port)
        guard let socket = connect(port: port) else { return }
        defer { close(socket) }
        _ = "GET /events HTTP/1.1\r\nHost: box\r\n\r\n".withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !stopped.withLock({ $0 }) {
          var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
          guard poll(&descriptor, 1, 100) > 0 else { continue }
          if buffer.withUnsafeMutableBytes({ recv(socket, $0.baseAddress, $0.count, 0) }) <= 0 { return }
        }
      }
    }.start()
  }

  func stop() { stopped.withLock { $0 = true } }

  /// One whole answer to a GET of `path` (read until the server closes).
  private func fetch(_ path: String, port: Int) {
    guard let socket = connect(port: port) else { return }
    defer { close(socket) }
    _ = "GET \(path) HTTP/1.1\r\nHost: box\r\nConnection: close\r\n\r\n".withCString {
      send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL))
    }
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while buffer.withUnsafeMutableBytes({ recv(socket, $0.baseAddress, $0.count, 0) }) > 0 {}
  }
}

func realGPSD(device: String) throws -> Server? {
  guard let gpsd else { return nil }
  let port = FakeGPSD.freePort()
  return try Server.start("gpsd", gpsd, ["-N", "-n", "-b", "-S", String(port), device], port: port)
}

/// A client watching JSON on its own thread, noting when each TPV with a time arrives.
final class Watcher: @unchecked Sendable {
  let socket: Int32
  let arrivals = Mutex<[(epoch: Int, at: ContinuousClock.Instant)]>([])
  let reports = Mutex(0)
  /// How its reading ended early, if it did: "closed by the server", or the error.
  let ending = Mutex<String?>(nil)
  private let stopped = Mutex(false)
  private var thread: Thread?

  init?(port: Int, watch: String = #"?WATCH={"enable":true,"json":true};"#) {
    guard let socket = connect(port: port) else { return nil }
    self.socket = socket
    _ = watch.withCString { send(socket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    thread = Thread { [self] in readLines() }
    thread?.start()
  }

  func stop() {
    stopped.withLock { $0 = true }
    shutdown(socket, Int32(SHUT_RDWR))
  }

  var tpvCount: Int { arrivals.withLock { $0.count } }

  private func readLines() {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var pending: [UInt8] = []
    while !stopped.withLock({ $0 }) {
      let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
      if count <= 0 {
        let why = count == 0 ? "closed by the server" : "error \(errno)"
        if !stopped.withLock({ $0 }) { ending.withLock { $0 = why } }
        break
      }
      let now = ContinuousClock.now
      pending += buffer[0..<count]
      while let newline = pending.firstIndex(of: 0x0A) {
        let line = pending[..<newline]
        pending.removeSubrange(...newline)
        reports.withLock { $0 += 1 }
        guard line.starts(with: Array(#"{"class":"TPV""#.utf8)), let epoch = Self.epoch(in: line) else { continue }
        arrivals.withLock { $0.append((epoch, now)) }
      }
    }
    close(socket)
  }

  /// The epoch index of a TPV's `"time":"2024-05-01THH:MM:SS.sssZ"`.
  static func epoch(in line: ArraySlice<UInt8>) -> Int? {
    let text = String(decoding: line, as: UTF8.self)
    guard let range = text.range(of: #""time":"2024-05-01T"#) else { return nil }
    let clock = text[range.upperBound...].prefix(12)  // HH:MM:SS.sss
    let parts = clock.split(separator: ":")
    guard parts.count == 3, let hours = Int(parts[0]), let minutes = Int(parts[1]), let second = Double(parts[2]) else { return nil }
    return Int(((Double(hours * 3600 + minutes * 60) + second) * 10).rounded())
  }
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
  let sorted = values.sorted()
  return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

func milliseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// A line on stdout at once, even into a pipe.
func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

func format(_ value: Double, _ decimals: Int = 1) -> String { String(format: "%.\(decimals)f", value) }

// MARK: 1. Clients

func clients(_ start: (String) throws -> Server?) async throws -> String? {
  let receiver = try Receiver()
  guard let server = try start(receiver.terminal.slavePath) else { return nil }
  defer { server.stop() }
  let watchers = (0..<clientCount).compactMap { _ in Watcher(port: server.port) }
  let playing = Task { await receiver.play(until: .now + .seconds(seconds + 3)) }
  try await Task.sleep(for: .seconds(3))  // connected, device found, first fixes out
  let counts = watchers.map(\.tpvCount)
  let cpu = server.cpuSeconds
  let begin = ContinuousClock.now
  try await Task.sleep(for: .seconds(seconds))
  let elapsed = milliseconds(begin.duration(to: .now)) / 1000
  let rates = zip(watchers, counts).map { Double($0.tpvCount - $1) / elapsed }
  let load = (server.cpuSeconds - cpu) / elapsed * 100
  let peak = server.memory("VmHWM")
  let (pss, dirty) = (server.rollup("Pss"), server.rollup("Private_Dirty"))
  watchers.forEach { $0.stop() }
  await playing.value

  // A client that got no TPV in the window says what it did get, so a stall can be told from
  // a client that was never served.
  let starved = zip(watchers, rates).filter { $1 == 0 }.map { watcher, _ in
    "\(watcher.reports.withLock { $0 }) lines, \(watcher.tpvCount) TPVs in all, \(watcher.ending.withLock { $0 } ?? "still connected")"
  }
  return "\(server.name): \(watchers.count) clients, TPVs per client per second min \(format(rates.min() ?? 0)) "
    + "median \(format(percentile(rates, 0.5))); CPU \(format(load))% of a core; peak RSS \(format(Double(peak) / 1024)) MB, "
    + "PSS \(format(Double(pss) / 1024)) MB, Private_Dirty \(format(Double(dirty) / 1024)) MB"
    + (starved.isEmpty ? "" : "; \(starved.count) got no TPV in the window (\(starved.joined(separator: "; ")))")
}

// MARK: 2. Latency

func latencies(_ start: (String) throws -> Server?) async throws -> [Double]? {
  let receiver = try Receiver()
  guard let server = try start(receiver.terminal.slavePath) else { return nil }
  defer { server.stop() }
  guard let watcher = Watcher(port: server.port) else { return nil }
  await receiver.play(until: .now + .seconds(15))
  try await Task.sleep(for: .milliseconds(300))
  watcher.stop()
  let written = receiver.written.withLock { $0 }
  // The first 3 s are start-up: the device opened, gpsd learning the cycle.
  return watcher.arrivals.withLock { $0 }.filter { $0.epoch >= 30 }.compactMap { arrival in
    written[arrival.epoch].map { milliseconds($0.duration(to: arrival.at)) }
  }
}

// MARK: 3. A stuck client

func stuck(withStuckClient: Bool, capture: String) async throws -> String {
  let port = FakeGPSD.freePort()
  let server = try Server.start(
    "gpsbridge serve", gpsbridge, ["serve", "--replay", capture, "--speed", "20", "--listen", "127.0.0.1:\(port)"], port: port)
  defer { server.stop() }
  let stuckSocket = withStuckClient ? connect(port: port, receiveBuffer: 4096) : nil
  if let stuckSocket {
    let watch = #"?WATCH={"enable":true,"json":true,"nmea":true};"#
    _ = watch.withCString { send(stuckSocket, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
  }
  guard let reader = Watcher(port: port) else { throw POSIXError(.ECONNREFUSED) }
  var peak = 0
  let end = ContinuousClock.now + .seconds(15)
  while ContinuousClock.now < end {
    peak = max(peak, server.memory("VmRSS"))
    try await Task.sleep(for: .milliseconds(100))
  }
  reader.stop()
  var dropped = "no stuck client"
  if let stuckSocket {
    // Dropped: after what the kernel holds is read, the server's end of file.
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var total = 0
    var result = 0
    repeat {
      result = buffer.withUnsafeMutableBytes { recv(stuckSocket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      total += max(0, result)
    } while result > 0
    dropped =
      result == 0 ? "the stuck client was dropped (\(total / 1024) KiB were still in its socket)" : "the stuck client is still connected"
    close(stuckSocket)
  }
  return "\(withStuckClient ? "with" : "without") a stuck client: peak RSS \(format(Double(peak) / 1024)) MB, "
    + "the reading client got \(reader.tpvCount) TPVs; \(dropped)"
}

say("serve-benchmark: \(gpsbridge)\(gpsd.map { " against \($0)" } ?? " (gpsd is not installed: its rows are skipped)")")
say("\n1. \(clientCount) clients, a 10 Hz receiver on a pty, \(seconds) s")
let starts: [(String) throws -> Server?] =
  settings.budget ? [bridge, bridgeWithWebhook, realGPSD] : [bridge, bridgeWatched, bridgeWithMQTT, realGPSD]
for start in starts {
  if let line = try await clients(start) { say("   " + line) }
}

say("\n2. Latency: an epoch's last byte on the pty to a client's TPV, \(rounds) rounds of 15 s each, alternating")
var measured: [String: [Double]] = [:]
for _ in 0..<rounds {
  let servers: [(String, (String) throws -> Server?)] = [
    ("gpsbridge serve", bridge), ("gpsbridge serve, page open, scraped", bridgeWatched), ("gpsd", realGPSD),
  ]
  for (name, start) in servers where !settings.budget || name != "gpsbridge serve, page open, scraped" {
    if let values = try await latencies(start) { measured[name, default: []] += values }
  }
}
for (name, values) in measured.sorted(by: { $0.key > $1.key }).reversed() {
  say("   \(name): \(values.count) TPVs, p50 \(format(percentile(values, 0.5), 2)) ms, p99 \(format(percentile(values, 0.99), 2)) ms")
}

if settings.budget { exit(0) }
say("\n3. A client that never reads, a capture at 200 epochs/s, 15 s")
let capture = FileManager.default.temporaryDirectory.appendingPathComponent("serve-benchmark-\(getpid()).nmea").path
defer { try? FileManager.default.removeItem(atPath: capture) }
let simulate = Process()
simulate.executableURL = URL(fileURLWithPath: gpsbridge)
simulate.arguments = ["simulate", "--profile", "ublox", "--rate", "10", "--duration", "600", "--output", capture]
try simulate.run()
simulate.waitUntilExit()
for withStuckClient in [false, true] {
  say("   " + (try await stuck(withStuckClient: withStuckClient, capture: capture)))
}
