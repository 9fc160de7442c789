// What the MQTT path adds, measured against a real Mosquitto started here:
//
// 1. crossings: the simulated demo drive at 10 times real time through 120 regions along its
//    way; from the moment the engine reports an entry or exit (the manager's action) to its
//    arrival at a subscriber of the broker, p50 and p99;
// 2. a broker restart: an entry or exit event every 100 ms for 20 s; the broker stops (SIGTERM)
//    5 s in and comes back 5 s later; the events published, the most that waited in gpsbridge's
//    queue, and those that reached a subscriber (with a persistent session), lost or twice.
//
//   swift run -c release automation-benchmark [--rounds N] [--broker-nodelay]
//
// Needs Debian's mosquitto. Defaults: 3 drives (about 75 s), then the restart (25 s).
import Automation
import Foundation
import GPSLocation
import Plumbing

func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
func format(_ value: Double, _ decimals: Int = 2) -> String { String(format: "%.\(decimals)f", value) }
func milliseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}
func percentile(_ values: [Double], _ fraction: Double) -> Double {
  let sorted = values.sorted()
  return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
}

var rounds = 3
var brokerNoDelay = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  if argument == "--rounds", let value = arguments.popFirst().flatMap(Int.init) { rounds = value }
  if argument == "--broker-nodelay" { brokerNoDelay = true }
}
let mosquittoPaths = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"]
guard mosquittoPaths.contains(where: FileManager.default.isExecutableFile) else {
  FileHandle.standardError.write(Data("automation-benchmark: needs Mosquitto (Debian: mosquitto).\n".utf8))
  exit(1)
}

func freePort() -> Int {
  let socket = try! FileDescriptor.listenTCP(host: "127.0.0.1", port: 0)
  defer { try? socket.close() }
  var address = sockaddr_in()
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  _ = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket.rawValue, $0, &length) }
  }
  return Int(UInt16(bigEndian: address.sin_port))
}

/// A Mosquitto of the benchmark's own, persistent (a restart keeps the subscriber's session).
final class Broker: @unchecked Sendable {
  let port = freePort()
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("automation-benchmark-\(getpid())")
  var process: Process?

  init(noDelay: Bool) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    // Mosquitto's own Nagle (set_tcp_nodelay false, its default) holds a second message to a
    // subscriber until the first is acknowledged; --broker-nodelay turns it off.
    try
      ("listener \(port) 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location \(directory.path)/\n"
      + (noDelay ? "set_tcp_nodelay true\n" : "")).write(
        to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
  }

  func start() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: mosquittoPaths.first(where: FileManager.default.isExecutableFile)!)
    process.arguments = ["-c", directory.appendingPathComponent("mosquitto.conf").path]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    // A child inherits the spawning thread's signal mask, and a pool thread blocks SIGTERM:
    // Mosquitto then never hears it (and never saves its sessions).
    var empty = sigset_t(), previous = sigset_t()
    sigemptyset(&empty)
    pthread_sigmask(SIG_SETMASK, &empty, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    try process.run()
    self.process = process
    for _ in 0..<200 {
      if let socket = try? FileDescriptor.connectTCP(host: "127.0.0.1", port: port) {
        try? socket.close()
        return
      }
      usleep(20_000)
    }
  }

  /// SIGTERM (it saves its sessions), SIGKILL after 5 s.
  func stop() {
    guard let process, process.isRunning else { return }
    process.terminate()
    for _ in 0..<250 where process.isRunning { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    while process.isRunning { usleep(20_000) }
    self.process = nil
  }

  deinit {
    stop()
    try? FileManager.default.removeItem(at: directory)
  }
}

/// A subscriber written here on a socket (QoS 1, a persistent session, connected again when
/// the broker comes back): each PUBLISH's payload with when it arrived.
final class Subscriber: @unchecked Sendable {
  let arrivals = Locked<[(topic: String, payload: String, at: ContinuousClock.Instant)]>([])
  private let stopped = Locked(false)

  init(port: Int, topic: String) {
    let thread = Thread { [arrivals, stopped] in
      while !stopped.withLock({ $0 }) {
        guard let socket = try? FileDescriptor.connectTCP(host: "127.0.0.1", port: port) else {
          usleep(100_000)
          continue
        }
        func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { try? socket.sendSome($0) } }
        func string(_ text: String) -> [UInt8] { [UInt8(text.utf8.count >> 8), UInt8(text.utf8.count & 255)] + Array(text.utf8) }
        // CONNECT: a persistent session (clean session 0), keepalive 60 s.
        let connect = string("MQTT") + [4, 0x00, 0, 60] + string("automation-benchmark-subscriber")
        send([0x10, UInt8(connect.count)] + connect)
        let subscribe = [0, 1] + string(topic) + [1]
        send([0x82, UInt8(subscribe.count)] + subscribe)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        reading: while !stopped.withLock({ $0 }) {
          var descriptor = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
          guard poll(&descriptor, 1, 100) > 0 else { continue }
          let count = (try? socket.read(into: &buffer)) ?? -1
          guard count > 0 else { break }
          let at = ContinuousClock.now
          received += buffer[0..<count]
          while received.count >= 2 {
            var length = 0, multiplier = 1, index = 1
            while index < received.count {
              length += Int(received[index] & 0x7F) * multiplier
              multiplier *= 128
              index += 1
              if received[index - 1] & 0x80 == 0 { break }
            }
            guard received.count >= index + length else { break }
            let first = received[0]
            let body = Array(received[index..<index + length])
            received.removeFirst(index + length)
            guard first >> 4 == 3 else { continue }
            let topicLength = Int(body[0]) << 8 | Int(body[1])
            var payloadStart = 2 + topicLength
            if (first >> 1) & 3 > 0 {
              send([0x40, 2, body[payloadStart], body[payloadStart + 1]])
              payloadStart += 2
            }
            let topic = String(decoding: body[2..<2 + topicLength], as: UTF8.self)
            let payload = String(decoding: body[payloadStart...], as: UTF8.self)
            arrivals.withLock { $0.append((topic, payload, at)) }
          }
          continue reading
        }
        try? socket.close()
      }
    }
    thread.start()
  }

  func stop() { stopped.withLock { $0 = true } }
}

let broker = try Broker(noDelay: brokerNoDelay)
try broker.start()
defer {
  broker.stop()
  try? FileManager.default.removeItem(at: broker.directory)
}
say("automation-benchmark: Mosquitto on 127.0.0.1:\(broker.port)\(brokerNoDelay ? ", set_tcp_nodelay true" : " (its defaults: Nagle on)")")

// MARK: 1. Crossings on the drive

do {
  // 120 regions 80 m across along the drive's eastward leg (47.375 N, from 8.545 E).
  var regions: [Region] = []
  for row in 0..<3 {
    for column in 0..<40 {
      regions.append(
        Region(
          identifier: "r\(row)-\(column)",
          center: LocationCoordinate2D(latitude: 47.374 + Double(row) * 0.001, longitude: 8.545 + Double(column) * 0.0015), radius: 40))
    }
  }
  let subscriber = Subscriber(port: broker.port, topic: "bench/+/actions")
  usleep(500_000)
  var configuration = MQTTPublisher.Configuration(address: MQTTAddress(host: "127.0.0.1", port: broker.port, prefix: "bench"))
  configuration.interval = .seconds(1)
  let publisher = MQTTPublisher(configuration)
  let publishing = Task { try? await publisher.run() }
  let sent = Locked<[String: ContinuousClock.Instant]>([:])
  for round in 0..<rounds {
    let manager = LocationManager.simulated(speed: .multiplied(by: 10))
    let actions = manager.delegateBatches()
    await manager.perform(regions.map { .startMonitoringForRegion($0) } + [.startUpdatingLocation])
    reading: for await batch in actions {
      let at = ContinuousClock.now
      publisher.take(batch, device: "drive\(round)")
      for action in batch {
        switch action {
        case .didEnterRegion, .didExitRegion: sent.withLock { $0["bench/drive\(round)/actions " + action.jsonLine] = at }
        case .didFailWithError: break reading
        default: break
        }
      }
    }
    await manager.perform([.stopUpdatingLocation])
  }
  try await Task.sleep(for: .seconds(2))
  let arrived = subscriber.arrivals.withLock { $0 }
  let times = sent.withLock { $0 }
  var latencies: [Double] = []
  for (topic, payload, at) in arrived {
    // Each drive's crossings are alike: its device's topic tells them apart.
    if let start = times[topic + " " + payload] { latencies.append(milliseconds(start.duration(to: at))) }
  }
  say(
    "\n1. Crossings on the simulated drive (10× real time, 120 regions, \(rounds) drives): \(times.count) distinct entry/exit lines sent, "
      + "\(latencies.count) arrivals; engine's action to the subscriber p50 \(format(percentile(latencies, 0.5))) ms, "
      + "p99 \(format(percentile(latencies, 0.99))) ms, max \(format(latencies.max() ?? .nan)) ms")
  subscriber.stop()
  publishing.cancel()
  await publishing.value
}

// MARK: 2. A broker restart

do {
  let subscriber = Subscriber(port: broker.port, topic: "bench/restart/actions")
  usleep(500_000)
  let publisher = MQTTPublisher(MQTTPublisher.Configuration(address: MQTTAddress(host: "127.0.0.1", port: broker.port, prefix: "bench")))
  let publishing = Task { try? await publisher.run() }
  let start = ContinuousClock.now
  var published = 0
  var stopped = false, restarted = false
  while start.duration(to: .now) < .seconds(20) {
    let region = Region(identifier: "e\(published)", center: LocationCoordinate2D(latitude: 47, longitude: 8), radius: 50)
    publisher.take([published % 2 == 0 ? .didEnterRegion(region) : .didExitRegion(region)], device: "restart")
    published += 1
    if !stopped, start.duration(to: .now) >= .seconds(5) {
      broker.stop()
      stopped = true
    }
    if stopped, !restarted, start.duration(to: .now) >= .seconds(10) {
      try broker.start()
      restarted = true
    }
    try await Task.sleep(for: .milliseconds(100))
  }
  try await Task.sleep(for: .seconds(5))
  let names = subscriber.arrivals.withLock { $0 }.compactMap { arrival -> String? in
    guard let range = arrival.payload.range(of: #""identifier":""#) else { return nil }
    return String(arrival.payload[range.upperBound...].prefix { $0 != "\"" })
  }
  let unique = Set(names)
  let inOrder = names.compactMap { Int($0.dropFirst()) } == names.compactMap { Int($0.dropFirst()) }.sorted()
  let statistics = publisher.client.statistics
  say(
    "\n2. A broker restart (down from 5 s to 10 s of 20 s, an event every 100 ms): \(published) events published, "
      + "at most \(statistics.mostQueued) waited in gpsbridge's queue, \(unique.count) reached the subscriber "
      + "(\(published - unique.count) lost, \(names.count - unique.count) twice), \(inOrder ? "in order" : "NOT in order"); "
      + "\(statistics.connections) connections, \(statistics.dropped) dropped")
  subscriber.stop()
  publishing.cancel()
  await publishing.value
}
