import FoundationEssentials
import GPSLocation
import NMEASimulation

/// The main job: open the source, start what was asked for, print every action.
func run(_ options: RunOptions) async -> Int32 {
  var regions = options.regions
  for file in options.regionFiles {
    do {
      regions += try readRegions(file)
    } catch {
      Terminal.diagnostic("Error: \(error)")
      return 1
    }
  }
  var configuration = LocationEngine.Configuration()
  if let dwell = options.visitDwell { configuration.visitMinimumDwell = dwell }
  // The demo drive stands in for a missing receiver only before a person's eyes.
  let demoAllowed = Terminal.standardOutputIsTerminal && !options.json
  guard
    let source = await openSource(
      options.source, configuration: configuration, visitDwellGiven: options.visitDwell != nil, viaLibGPS: options.viaLibGPS,
      demoAllowed: demoAllowed)
  else {
    // Stopped (Ctrl-C, SIGTERM) while it waited for a receiver: nothing failed.
    return 0
  }
  var options = options
  if source.isDemo {
    // What the demo is for: regions along the drive, heading and visits.
    if regions.isEmpty { regions = Route.demoPlaces.map(Region.init) }
    options.heading = true
    options.visits = true
  }
  let manager = source.manager
  // RTK corrections (--ntrip) to a receiver that can be written to.
  var corrections: RunCorrections?
  if let configuration = options.corrections.configuration {
    guard source.isSerial else {
      Terminal.diagnostic(
        "Error: --ntrip sends corrections to a receiver on a serial port, and \(source.name) is not one: give --device PATH.")
      return 1
    }
    let streaming = RunCorrections(configuration, receiver: source.receiver, name: source.name)
    source.status?.show(corrections: { streaming.client.health.summary })
    corrections = streaming
  }
  var output: any ActionOutput = options.json ? JSONLinesOutput() : TextOutput(status: source.status)
  defer { output.finish() }
  let actions = manager.delegateBatches()
  // Actions out to MQTT and webhooks (--mqtt, --webhook), for as long as the run lasts.
  let outlets: ActionOutlets
  do {
    outlets = try ActionOutlets(
      mqtt: options.mqtt.configuration, webhooks: options.webhooks, sendsLocations: options.significantChanges,
      say: { Terminal.diagnostic($0) })
  } catch {
    Terminal.diagnostic("Error: --webhook: \(error)")
    return 1
  }
  // Regions kept across runs (--state-dir) are a monitor's; it starts the source with them.
  var kept: KeptRegions?
  if let directory = options.stateDirectory, !regions.isEmpty || options.visits {
    do {
      let (json, status, device) = (options.json, source.status, source.device)
      kept = try await KeptRegions(
        regions, name: "regions", storage: .directory(directory), manager: manager, keepingVisits: options.visits
      ) {
        event, actions, whenHandled in
        // Said first: the outlets may have it at once, and then it is forgotten.
        if json {
          var lines = ActionJSONLines(capacity: 1024)
          for action in actions { lines.append(action, of: event) }
          _ = Terminal.tryWrite(lines.bytes)
        } else {
          let text = actions.map { TextOutput.line(for: $0, at: event.date, emphasised: status != nil) + "\n" }.joined()
          _ = status?.write(text) ?? Terminal.tryWrite(Array(text.utf8))
        }
        outlets.take(actions, device: device, of: event, whenHandled: whenHandled)
      }
    } catch {
      Terminal.diagnostic("Error: \(error)")
      return 1
    }
  }
  // Every command in one step: the source starts after the last, so a replay gives the same
  // actions every time.
  await manager.perform(commands(for: options, regions: kept == nil ? regions : [], visits: kept == nil && options.visits))

  // When --desired-accuracy holds fixes back, say so once: after a while live, or at the end.
  let withheldNotice = WithheldNotice(desiredAccuracy: options.desiredAccuracy, manager: manager)
  let noticeLater = Task {
    guard await sleepOrCancel(.seconds(10)) else { return }
    await withheldNotice.sayOnce()
  }
  defer { noticeLater.cancel() }

  var status: Int32 = 0
  var locations = 0
  reading: for await batch in actions {
    // With --state-dir the monitor says the region events, once each.
    let batch = kept.map { kept in batch.filter { !kept.saysInstead($0) } } ?? batch
    outlets.take(batch, device: source.device)
    for action in batch {
      if case .didUpdateLocations = action { locations += 1 }
      // --once prints the one location and nothing else: its output is one line to parse.
      if case .didUpdateLocations = action, options.once {
        output.write(action)
        break reading
      }
      if case .didFailWithError(let error) = action, error.code == .endOfCapture, let kept {
        // The monitor's last events, from the same fixes, go first.
        output.flush()
        await kept.delivered()
      }
      if !options.once { output.write(action) }
      guard case .didFailWithError(let error) = action else { continue }
      // The end of a capture ends the run; a cause that cannot go away ends it as a failure,
      // as does any failure to answer --once. Other errors are shown and waited out.
      if error.code == .endOfCapture {
        // A capture that gave no location at all fails, saying why (the summary does), unless
        // --desired-accuracy held its locations back (said below).
        if options.once || (locations == 0 && options.desiredAccuracy == nil) { status = 1 }
      } else if error.reason?.isPermanent == true || error.code == .denied || (options.once && error.code == .locationUnknown) {
        status = 1
      } else {
        // A cause that may pass: --once says it on stderr while it waits.
        if options.once { Terminal.diagnostic("gpsbridge: \(error.message)") }
        continue
      }
      // Said on stderr, unless the error line above is already on the same terminal.
      let shown = !options.once && !options.json && Terminal.standardOutputIsTerminal && Terminal.standardErrorIsTerminal
      if status != 0, !shown {
        let noLocation = error.code == .endOfCapture && locations == 0
        Terminal.diagnostic(noLocation ? "Error: no location in the capture. \(error.message)" : "Error: \(error.message)")
      }
      break reading
    }
    // A cause the corrections or the broker cannot get over ends the run.
    if let failed = corrections?.failed ?? outlets.failed {
      if corrections?.failed != nil { Terminal.diagnostic("Error: \(failed)") }
      status = 1
      break reading
    }
    // Everything that was ready is written; the next read may wait.
    output.flush()
    if output.failure != nil { break }
  }
  output.flush()
  await kept?.stop()
  if let failure = output.failure { status = Terminal.outcome(of: failure) }
  await withheldNotice.sayOnce()
  await corrections?.stop()
  await outlets.stop()
  // Events that never reached the broker or the webhook are a failure of the job.
  if status == 0, outlets.undelivered > 0 {
    let count = outlets.undelivered
    Terminal.diagnostic("Error: \(count) event\(count == 1 ? " was" : "s were") never delivered (the lines above say why).")
    status = 1
  }
  await stopEverything(manager, regions: regions)
  return status
}

/// What the options ask the manager to do, in the order it is to do it.
/// The manager's commands for `options`, with `regions` and, when `visits`, visits (both
/// left out when a monitor keeps them).
func commands(for options: RunOptions, regions: [Region], visits: Bool) -> [LocationManager.Command] {
  var commands: [LocationManager.Command] = [
    .set(LocationManager.Properties(desiredAccuracy: options.desiredAccuracy, distanceFilter: options.distanceFilter))
  ]
  if options.once { return commands + [.requestLocation] }
  commands += regions.map { .startMonitoringForRegion($0) }
  if visits { commands.append(.startMonitoringVisits) }
  if options.significantChanges { commands.append(.startMonitoringSignificantLocationChanges) }
  if options.heading { commands.append(.startUpdatingHeading) }
  // Significant changes replace standard updates, as in CoreLocation: a location every 500 m.
  if !options.significantChanges { commands.append(.startUpdatingLocation) }
  return commands
}

/// Stops every activity; returns once the source has stopped (the device closed, its
/// settings restored).
func stopEverything(_ manager: LocationManager, regions: [Region]) async {
  await manager.perform(
    [.stopUpdatingLocation, .stopUpdatingHeading, .stopMonitoringVisits, .stopMonitoringSignificantLocationChanges]
      + regions.map { .stopMonitoringForRegion($0) })
}

/// Says once, on stderr, how many fixes `--desired-accuracy` kept back and why, so a run
/// that prints nothing explains itself.
final class WithheldNotice: Sendable {
  let desiredAccuracy: Double?
  let manager: LocationManager
  private let said = Shared(false)

  init(desiredAccuracy: Double?, manager: LocationManager) {
    self.desiredAccuracy = desiredAccuracy
    self.manager = manager
  }

  func sayOnce() async {
    guard let desiredAccuracy, !said.withLock({ $0 }) else { return }
    let statistics = await manager.statistics()
    guard statistics.withheld > 0,
      said.withLock({ (said: inout Bool) in
        defer { said = true }; return !said
      })
    else { return }
    let best = statistics.bestWithheldAccuracy.map { " (the best was ±\(format($0, 1)) m)" } ?? " (they gave no accuracy)"
    Terminal.diagnostic(
      "gpsbridge: \(statistics.withheld) fix\(statistics.withheld == 1 ? " was" : "es were") not shown: less accurate than --desired-accuracy \(format(desiredAccuracy, 1)) m\(best)."
    )
  }
}
