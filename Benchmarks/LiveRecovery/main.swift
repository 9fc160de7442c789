// How fast live sources come back, through `LocationManager`, with real parts:
//
// - replug: a 10 Hz receiver on a pseudo-terminal behind a `by-id`-style link is unplugged
//   (the link, and every other time its directory, removed) and plugged back in after a
//   pause (the link made under a temporary name and renamed, as udev does); the time from the
//   link's reappearance to the first location after it, per replug;
// - gpsd restart: a gpsd stand-in on loopback (VERSION, DEVICES, WATCH, TPV at 10 Hz) closes
//   every connection and its listening socket, stays down for a pause, and listens again on
//   the same port; the time from listening again to `didResumeLocationUpdates` and to the
//   first location.
//
//   swift run -c release live-recovery [--replugs N] [--restarts N] [--down SECONDS]
//
// Each stays away for a time drawn between 0.5 s and `--down` (default 3 s) from a fixed
// seed, so runs compare like with like and no retry schedule can line up with the pauses.
// Defaults: 10 replugs, 5 restarts (about a minute).
import Foundation
import GPSLocation
import NMEASimulation
import Plumbing
import Synchronization
import TestHelpers

struct Settings {
  var replugs = 10, restarts = 5, down = 3.0

  static func parse(_ arguments: [String]) -> Settings {
    var settings = Settings()
    var arguments = arguments[...]
    while let argument = arguments.popFirst() {
      switch (argument, arguments.popFirst().flatMap(Double.init)) {
      case ("--replugs", let value?): settings.replugs = Int(value)
      case ("--restarts", let value?): settings.restarts = Int(value)
      case ("--down", let value?): settings.down = value
      default:
        print("USAGE: live-recovery [--replugs N] [--restarts N] [--down SECONDS]")
        exit(64)
      }
    }
    return settings
  }
}

let settings = Settings.parse(Array(CommandLine.arguments.dropFirst()))
let replugs = settings.replugs, restarts = settings.restarts

/// The time away before each return, drawn from a fixed seed.
let awayTimes: [Duration] = {
  var random = SplitMix64(seed: 2024)
  return (0..<(settings.replugs + settings.restarts)).map { _ in
    .milliseconds(Int((500 + Double(random.next() % 1000) / 1000 * (settings.down * 1000 - 500)).rounded()))
  }
}()

/// Milliseconds from `start` to now.
func milliseconds(since start: ContinuousClock.Instant) -> Double {
  let elapsed = start.duration(to: .now).components
  return Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
}

func summary(_ values: [Double]) -> String {
  guard !values.isEmpty else { return "no samples" }
  let sorted = values.sorted()
  let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
  func text(_ value: Double) -> String { String(Int(value.rounded())) }
  return "min \(text(sorted[0])) ms, median \(text(median)) ms, max \(text(sorted.last!)) ms   ["
    + values.map(text).joined(separator: ", ") + "]"
}

/// Waits for the first action `matching`, or `nil` after `timeout` seconds.
func first(
  _ iterator: inout AsyncStream<LocationManager.Action>.Iterator, timeout: Double = 15,
  matching: (LocationManager.Action) -> Bool
) async -> LocationManager.Action? {
  let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
  while ContinuousClock.now < deadline {
    guard let action = await iterator.next() else { return nil }
    if matching(action) { return action }
  }
  return nil
}

func isLocation(_ action: LocationManager.Action) -> Bool { if case .didUpdateLocations = action { true } else { false } }
func isResumed(_ action: LocationManager.Action) -> Bool { if case .didResumeLocationUpdates = action { true } else { false } }
func isPaused(_ action: LocationManager.Action) -> Bool { if case .didPauseLocationUpdates = action { true } else { false } }

// MARK: Replug

/// Plays a 10 Hz receiver into whichever pty is plugged in now.
final class Receiver: @unchecked Sendable {
  let current = Mutex<PseudoTerminal?>(nil)
  func run() async {
    var epochs = Simulation(route: Route.demoDrive.lasting(86_400), profile: .ublox, rate: 10).epochs().makeIterator()
    while !Task.isCancelled, let epoch = epochs.next() {
      let terminal = current.withLock { $0 }
      terminal?.write(epoch.bytes)
      try? await Task.sleep(for: .milliseconds(100))
    }
  }
}

func measureReplugs() async throws -> [Double] {
  let root = "/tmp/gpsbridge-recovery-\(getpid())"
  let directory = root + "/by-id"
  let link = directory + "/usb-Simulated_Receiver-if00"
  mkdir(root, 0o755)
  mkdir(directory, 0o755)
  defer {
    unlink(link)
    rmdir(directory)
    rmdir(root)
  }
  let receiver = Receiver()
  receiver.current.withLock { $0 = try? PseudoTerminal(link: link) }
  let playing = Task.detached { await receiver.run() }
  defer { playing.cancel() }
  let manager = LocationManager.serial(path: link, baudRate: .fixed(9600))
  var iterator = manager.delegate().makeAsyncIterator()
  await manager.startUpdatingLocation()
  guard await first(&iterator, matching: isLocation) != nil else { throw POSIXError(.ETIMEDOUT) }

  var latencies: [Double] = []
  for replug in 0..<replugs {
    receiver.current.withLock { terminal in
      terminal?.unplug()
      terminal = nil
    }
    if replug % 2 == 1 { rmdir(directory) }
    // Everything from before the unplug is read once the pause arrives.
    guard await first(&iterator, matching: isPaused) != nil else { throw POSIXError(.ETIMEDOUT) }
    try await Task.sleep(for: awayTimes[replug])
    // Plug in: the device, then the link under a temporary name, renamed into place.
    if replug % 2 == 1 { mkdir(directory, 0o755) }
    let temporary = directory + "/.tmp-link"
    let terminal = try PseudoTerminal(link: temporary)
    receiver.current.withLock { $0 = terminal }
    rename(temporary, link)
    let appeared = ContinuousClock.now
    guard await first(&iterator, matching: isResumed) != nil, await first(&iterator, matching: isLocation) != nil else {
      print("replug \(replug + 1): no location within 15 s")
      continue
    }
    latencies.append(milliseconds(since: appeared))
  }
  await manager.stopUpdatingLocation()
  receiver.current.withLock { $0?.unplug() }
  return latencies
}

// MARK: gpsd restart

/// Speaks just enough of gpsd's protocol: the banner, one device, and a TPV every 100 ms.
final class GPSDStandIn: @unchecked Sendable {
  let port: Int
  private let state = Mutex<(listener: CInt, clients: [CInt])>((-1, []))

  init(port: Int) { self.port = port }

  func start() throws {
    let listener = socket(AF_INET, streamSocket, 0)
    var on: CInt = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<CInt>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    guard bound, listen(listener, 8) == 0 else {
      close(listener)
      throw POSIXError(.EADDRINUSE)
    }
    state.withLock { $0.listener = listener }
    Thread.detachNewThread { [self] in
      while true {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        state.withLock { $0.clients.append(client) }
        Thread.detachNewThread { [self] in serve(client) }
      }
    }
  }

  func stop() {
    state.withLock { state in
      shutdown(state.listener, CInt(SHUT_RDWR))
      close(state.listener)
      for client in state.clients {
        shutdown(client, CInt(SHUT_RDWR))
        close(client)
      }
      state = (-1, [])
    }
  }

  private func serve(_ client: CInt) {
    func send(_ line: String) -> Bool {
      let bytes = Array((line + "\r\n").utf8)
      return bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL)) } == bytes.count
    }
    _ = send(#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#)
    var request = [UInt8](repeating: 0, count: 512)
    guard recv(client, &request, request.count, 0) > 0 else { return }
    _ = send(#"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","activated":"2024-05-01T08:00:00.000Z"}]}"#)
    _ = send(#"{"class":"WATCH","enable":true,"json":true}"#)
    var tenths = 0
    while true {
      let seconds = tenths / 10
      let time = "2024-05-01T08:\(String(100 + seconds / 60 % 60).dropFirst()):\(String(100 + seconds % 60).dropFirst()).\(tenths % 10)00Z"
      let tpv =
        #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"\#(time)","lat":47.3769,"lon":8.5417,"altHAE":457.3,"alt":410.0,"speed":1.5,"track":90.0,"eph":2.5,"epv":4.0}"#
      guard send(tpv) else { return }
      tenths += 1
      usleep(100_000)
    }
  }
}

func measureRestarts() async throws -> (resumed: [Double], located: [Double]) {
  let port = FakeGPSD.freePort()
  let gpsd = GPSDStandIn(port: port)
  try gpsd.start()
  let manager = LocationManager.gpsd(host: "127.0.0.1", port: port)
  var iterator = manager.delegate().makeAsyncIterator()
  await manager.startUpdatingLocation()
  guard await first(&iterator, matching: isLocation) != nil else { throw POSIXError(.ETIMEDOUT) }
  var resumed: [Double] = [], located: [Double] = []
  for restart in 0..<restarts {
    gpsd.stop()
    guard await first(&iterator, matching: isPaused) != nil else { throw POSIXError(.ETIMEDOUT) }
    try await Task.sleep(for: awayTimes[replugs + restart])
    try gpsd.start()
    let listening = ContinuousClock.now
    guard await first(&iterator, matching: isResumed) != nil else {
      print("restart \(restart + 1): no resume within 15 s")
      continue
    }
    resumed.append(milliseconds(since: listening))
    guard await first(&iterator, matching: isLocation) != nil else { continue }
    located.append(milliseconds(since: listening))
  }
  await manager.stopUpdatingLocation()
  gpsd.stop()
  return (resumed, located)
}

print("live-recovery: \(replugs) replugs and \(restarts) gpsd restarts, each after 0.5 to \(settings.down) s away")
let replugLatencies = try await measureReplugs()
print("replug → first location:        " + summary(replugLatencies))
let (resumed, located) = try await measureRestarts()
print("gpsd listening → resumed:        " + summary(resumed))
print("gpsd listening → first location: " + summary(located))
