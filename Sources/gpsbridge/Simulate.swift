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
  var route = Route.demoDrive
  if options.live {
    // The next whole second, and a day of driving unless told otherwise.
    route.start = UTCTimestamp(nanosecondsSince1970: (wallClockNanoseconds / 1_000_000_000 + 1) * 1_000_000_000)
    route = route.lasting(options.duration ?? 86_400)
  } else if let duration = options.duration {
    route = route.lasting(duration)
  }
  let simulation = Simulation(
    route: route, profile: options.profile, rate: options.rate, seed: options.seed, positionNoise: options.noise)
  if let link = options.pty {
    return await playOnPseudoTerminal(simulation, link: link, latency: options.live ? options.latency : nil)
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
      batch += epoch.bytes
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
func playOnPseudoTerminal(_ simulation: Simulation, link: String, latency: Int? = nil) async -> Int32 {
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
  // u-blox, MediaTek and SiRF receivers answer configuration (gpsbridge configure) as the real ones do.
  let responder = simulation.profile.responder(rate: max(1, Int(simulation.rate.rounded())), baud: 38_400)
  Terminal.diagnostic(
    "gpsbridge: a simulated \(simulation.profile.name) receiver is at \(link) (\(device))"
      + (simulation.profile.commands.map { ", taking \($0)" } ?? "") + "; stop with Ctrl-C.")
  await LiveReceiver(simulation: simulation, port: master, latency: latency, responder: responder).run()
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
