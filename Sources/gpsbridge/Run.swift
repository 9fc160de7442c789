import FoundationEssentials
import GPSLocation
import NMEASimulation
import Plumbing

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
  let source = await openSource(
    options.source, configuration: configuration, visitDwellGiven: options.visitDwell != nil, viaLibGPS: options.viaLibGPS)
  var options = options
  if source.isDemo {
    // What the demo is for: regions along the drive, heading and visits.
    if regions.isEmpty { regions = Route.demoPlaces.map(Region.init) }
    options.heading = true
    options.visits = true
  }
  let manager = source.manager
  guard let core = manager.core else { preconditionFailure("The command line's managers are made by LocationManager.source") }
  var output: any ActionOutput = options.json ? JSONLinesOutput() : TextOutput(sourceName: source.name, rejects: source.rejects)
  defer { output.finish() }
  let actions = core.subscribe()
  // Every command in one step: the source starts after the last, so a replay gives the same
  // actions every time and needs no lead-in.
  let properties = LocationManager.Properties(desiredAccuracy: options.desiredAccuracy, distanceFilter: options.distanceFilter)
  await core.perform { [options, regions] engine, now in
    engine.set(properties)
    if options.once {
      engine.requestLocation(now: now)
      return []
    }
    var started: [LocationManager.Action] = []
    for region in regions { started += engine.startMonitoring(region) }
    if options.visits { engine.startMonitoringVisits() }
    if options.significantChanges { engine.startMonitoringSignificantLocationChanges() }
    if options.heading { engine.startUpdatingHeading() }
    // Significant changes replace standard updates, as in CoreLocation: a location every 500 m.
    if !options.significantChanges { engine.startUpdatingLocation() }
    return started
  }

  // When --desired-accuracy holds fixes back, say so once: after a while live, or at the end.
  let withheldNotice = WithheldNotice(desiredAccuracy: options.desiredAccuracy, core: core)
  let noticeLater = Task {
    guard await sleepUnlessCancelled(.seconds(10)) else { return }
    await withheldNotice.sayOnce()
  }
  defer { noticeLater.cancel() }

  var status: Int32 = 0
  var batch: [LocationManager.Action] = []
  reading: while await actions.next(into: &batch) {
    for action in batch {
      output.write(action)
      if case .didUpdateLocations = action, options.once { break reading }
      guard case .didFailWithError(let error) = action else { continue }
      // The end of a capture ends the run; a cause that cannot go away ends it as a failure,
      // as does any failure to answer --once. Other errors are shown and waited out.
      if error.code == .endOfCapture {
        if options.once { status = 1 }
      } else if error.reason?.isPermanent == true || error.code == .denied || (options.once && error.code == .locationUnknown) {
        status = 1
      } else {
        continue
      }
      // Said on stderr, unless the error line above is already on the same terminal.
      let shown = !options.json && Terminal.standardOutputIsTerminal && Terminal.standardErrorIsTerminal
      if status != 0, !shown { Terminal.diagnostic("Error: \(error.message)") }
      break reading
    }
    // Everything that was ready is written; the next read may wait.
    output.flush()
    if output.failure != nil { break }
  }
  output.flush()
  if let failure = output.failure { status = Terminal.outcome(of: failure) }
  await withheldNotice.sayOnce()
  await stopEverything(manager, regions: regions)
  return status
}

/// Stops every activity; returns once the source has stopped (the device closed, its
/// settings restored).
func stopEverything(_ manager: LocationManager, regions: [Region]) async {
  await manager.stopUpdatingLocation()
  await manager.stopUpdatingHeading()
  await manager.stopMonitoringVisits()
  await manager.stopMonitoringSignificantLocationChanges()
  for region in regions { await manager.stopMonitoringForRegion(region) }
}

/// Says once, on stderr, how many fixes `--desired-accuracy` kept back and why, so a run
/// that prints nothing explains itself.
final class WithheldNotice: Sendable {
  let desiredAccuracy: Double?
  let core: LocationManager.CoreAccess
  private let said = Locked(false)

  init(desiredAccuracy: Double?, core: LocationManager.CoreAccess) {
    self.desiredAccuracy = desiredAccuracy
    self.core = core
  }

  func sayOnce() async {
    guard let desiredAccuracy, !said.withLock({ $0 }) else { return }
    let withheld = await core.withheld()
    guard withheld.count > 0,
      said.withLock({ (said: inout Bool) in
        defer { said = true }; return !said
      })
    else { return }
    let best = withheld.bestAccuracy.map { " (the best was ±\(format($0, 1)) m)" } ?? " (they gave no accuracy)"
    Terminal.diagnostic(
      "gpsbridge: \(withheld.count) fix\(withheld.count == 1 ? " was" : "es were") not shown: less accurate than --desired-accuracy \(format(desiredAccuracy, 1)) m\(best)."
    )
  }
}
