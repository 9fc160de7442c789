import NMEA
import NMEASimulation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `gpsbridge simulate`: a simulated receiver's bytes, to a file at once or to a
/// pseudo-terminal in real time.
func simulate(_ options: SimulateOptions) async -> Int32 {
  if options.rtcm { return await simulateStation(options) }
  var route = Route.demoDrive
  if options.live {
    // The next whole second, and a day of driving unless told otherwise.
    route.start = UTCTimestamp(nanosecondsSince1970: (wallClockNanoseconds / 1_000_000_000 + 1) * 1_000_000_000)
    route = route.lasting(options.duration ?? 86_400)
  } else if let duration = options.duration {
    route = route.lasting(duration)
  }
  let simulation = Simulation(
    route: route, profile: options.profile, rate: options.rate, seed: options.seed, positionNoise: options.noise,
    attack: options.attack)
  if let link = options.pty {
    return await playOnPseudoTerminal(
      simulation, link: link, latency: options.live ? options.latency : nil, onUSB: options.usb, radio: options.radio)
  }

  let output: OpenFile
  do {
    output = options.output == "-" ? .standardOutput : try OpenFile.create(options.output)
  } catch {
    Terminal.diagnostic("Error: cannot write \(options.output): \(error).")
    return 1
  }
  defer { if options.output != "-" { output.close() } }
  var batch = simulation.header
  do {
    for epoch in simulation.epochs() {
      batch += epoch.sent
      if batch.count >= 65_536 {
        try output.writeAll(batch)
        batch.removeAll(keepingCapacity: true)
      }
    }
    try output.writeAll(batch)
  } catch  where error == .brokenPipe {
    return 0
  } catch {
    Terminal.diagnostic("Error: writing \(options.output == "-" ? "standard output" : options.output) failed: \(error).")
    return 1
  }
  return 0
}

/// Plays the simulation in real time on a new pseudo-terminal whose device is linked at
/// `link`, as a USB receiver would appear; stops at its end, on Ctrl-C or SIGTERM. Bytes nobody
/// reads are dropped, as on a serial line. With a `latency` (milliseconds) each epoch is sent
/// that long after the system clock reaches its time, as a live receiver's are.
func playOnPseudoTerminal(_ simulation: Simulation, link: String, latency: Int? = nil, onUSB: Bool = false, radio: Bool = false)
  async -> Int32
{
  // u-blox, MediaTek and SiRF receivers answer configuration (gpsbridge configure) as the real
  // ones do; the RTK rover takes corrections (or has its own, by radio).
  var responder = simulation.profile.responder(rate: max(1, Int(simulation.rate.rounded())), baud: 38_400, onUSB: onUSB)
  if radio, var rover = responder as? RTKResponder {
    rover.radio = .now
    responder = rover
  }
  let what =
    "\(simulation.profile.name) receiver" + (onUSB ? " on its USB port" : "")
    + (simulation.profile.commands.map { ", taking \($0)" } ?? "")
  return await playOnPseudoTerminal(link: link, what: what) { master, _ in
    await LiveReceiver(simulation: simulation, port: master, latency: latency, responder: responder).run()
  }
}

/// A new pseudo-terminal linked at `link`, on which `play` writes (given its master, and a
/// function that writes whatever the line takes now), until it returns or the program is
/// stopped. `what` says what is simulated there.
func playOnPseudoTerminal(
  link: String, what: String, play: (CInt, @escaping @Sendable ([UInt8]) -> Void) async -> Void
) async -> Int32 {
  var master: CInt = -1, slave: CInt = -1
  var name = [CChar](repeating: 0, count: 256)
  guard openpty(&master, &slave, &name, nil, nil) == 0 else {
    Terminal.diagnostic("Error: cannot create a pseudo-terminal: \(SystemError.current).")
    return 1
  }
  let device = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  defer {
    _ = close(master)
    _ = close(slave)
  }
  // The link is ours to replace only when it is one a simulation left (to a pseudo-terminal):
  // never a file or a link that something else made.
  guard isPseudoTerminalLinkOrNothing(link) else {
    Terminal.diagnostic("Error: \(link) exists and is not a link to a pseudo-terminal; choose another --pty path, or remove it.")
    return 64
  }
  // At the end, the link goes only if it is still ours (nobody replaced it meanwhile).
  defer { if linkTarget(link) == device { unlink(link) } }
  var settings = termios()
  tcgetattr(slave, &settings)
  cfmakeraw(&settings)
  tcsetattr(slave, TCSANOW, &settings)
  _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
  unlink(link)
  guard symlink(device, link) == 0 else {
    Terminal.diagnostic("Error: cannot create the link \(link): \(SystemError.current).")
    return 1
  }
  Terminal.diagnostic("gpsbridge: a simulated \(what) is at \(link) (\(device)); stop with Ctrl-C.")
  let port = master
  await play(master) { bytes in bytes.withUnsafeBytes { _ = write(port, $0.baseAddress, $0.count) } }
  return 0
}

/// Whether nothing is at `path`, or a symbolic link to a pseudo-terminal (`/dev/pts/N`), as a
/// simulation leaves behind when it is killed.
func isPseudoTerminalLinkOrNothing(_ path: String) -> Bool {
  var status = stat()
  guard lstat(path, &status) == 0 else { return errno == ENOENT }
  return linkTarget(path)?.hasPrefix("/dev/pts/") == true
}

/// Where the symbolic link at `path` points; `nil` when it is no link.
func linkTarget(_ path: String) -> String? {
  var target = [CChar](repeating: 0, count: 4096)
  let count = readlink(path, &target, target.count - 1)
  guard count > 0 else { return nil }
  return String(decoding: target.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// `simulate --rtcm`: a reference station beside the demo drive's start, its RTCM 3 stream
/// written to a file at once (`--duration` seconds of it), or to a pseudo-terminal at 1 Hz.
func simulateStation(_ options: SimulateOptions) async -> Int32 {
  let route = Route.demoDrive
  let station = RTCMWriter(latitude: route.latitude + 0.001, longitude: route.longitude + 0.001, height: route.altitude + 47)
  let seconds = Int(options.duration ?? route.duration)
  // GPS seconds of the week now (GPS is 18 s ahead of UTC; weeks from 6 January 1980).
  let gpsSecond = { Int((wallClockNanoseconds / 1_000_000_000 - 315_964_800 + 18) % 604_800) }
  if let link = options.pty {
    return await playOnPseudoTerminal(link: link, what: "reference station (RTCM 3, 1 Hz)") { _, write in
      var second = gpsSecond()
      while !Task.isCancelled {
        write(station.frames(secondOfWeek: second).flatMap(\.bytes))
        try? await Task.sleep(for: .seconds(1))
        second = (second + 1) % 604_800
      }
    }
  }
  let output: OpenFile
  do {
    output = options.output == "-" ? .standardOutput : try OpenFile.create(options.output)
  } catch {
    Terminal.diagnostic("Error: cannot write \(options.output): \(error).")
    return 1
  }
  defer { if options.output != "-" { output.close() } }
  do {
    try output.writeAll(station.stream(seconds: seconds, start: gpsSecond()))
  } catch  where error == .brokenPipe {
    return 0
  } catch {
    Terminal.diagnostic("Error: writing \(options.output == "-" ? "standard output" : options.output) failed: \(error).")
    return 1
  }
  return 0
}
