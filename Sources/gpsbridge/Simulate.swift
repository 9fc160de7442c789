import NMEA
import NMEASimulation
import Plumbing

/// `gpsbridge simulate`: a simulated receiver's bytes, to a file at once or to a
/// pseudo-terminal in real time.
func simulate(_ options: SimulateOptions) async -> Int32 {
  var route = Route.demoDrive
  if let duration = options.duration { route = route.lasting(duration) }
  let simulation = Simulation(
    route: route, profile: options.profile, rate: options.rate, seed: options.seed, positionNoise: options.noise)
  if let link = options.pty { return await playOnPseudoTerminal(simulation, link: link) }

  let output: FileDescriptor
  do {
    output = options.output == "-" ? .standardOutput : try FileDescriptor.open(options.output, O_WRONLY | O_CREAT | O_TRUNC)
  } catch {
    Terminal.diagnostic("Error: cannot write \(options.output): \(error).")
    return 1
  }
  defer { if options.output != "-" { try? output.close() } }
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
  } catch .brokenPipe {
    return 0
  } catch {
    Terminal.diagnostic("Error: writing \(options.output == "-" ? "standard output" : options.output) failed: \(error).")
    return 1
  }
  return 0
}

/// Plays the simulation in real time on a new pseudo-terminal whose device is linked at
/// `link`, as a USB receiver would appear; stops at its end, on Ctrl-C or SIGTERM. Bytes nobody
/// reads are dropped, as on a serial line.
func playOnPseudoTerminal(_ simulation: Simulation, link: String) async -> Int32 {
  var master: CInt = -1, slave: CInt = -1
  var name = [CChar](repeating: 0, count: 256)
  guard openpty(&master, &slave, &name, nil, nil) == 0 else {
    Terminal.diagnostic("Error: cannot create a pseudo-terminal: \(Errno.current).")
    return 1
  }
  let device = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  defer {
    unlink(link)
    _ = system_close(master)
    _ = system_close(slave)
  }
  var settings = termios()
  tcgetattr(slave, &settings)
  cfmakeraw(&settings)
  tcsetattr(slave, TCSANOW, &settings)
  _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
  unlink(link)
  guard symlink(device, link) == 0 else {
    Terminal.diagnostic("Error: cannot create the link \(link): \(Errno.current).")
    return 1
  }
  Terminal.diagnostic("gpsbridge: a simulated \(simulation.profile.name) receiver is at \(link) (\(device)); stop with Ctrl-C.")
  let clock = ContinuousClock()
  let start = clock.now
  let first = simulation.route.start.nanosecondsSince1970
  let port = FileDescriptor(rawValue: master)
  for epoch in simulation.epochs() {
    let due = start.advanced(by: .nanoseconds(epoch.truth.time.nanosecondsSince1970 - first))
    do {
      try await clock.sleep(until: due)
    } catch {
      return 0
    }
    _ = try? port.writeAll(epoch.bytes)
  }
  return 0
}
