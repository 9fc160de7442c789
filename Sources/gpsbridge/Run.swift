import FoundationEssentials
import GPSLocation
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
  let source = await openSource(options.source)
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
    engine.startUpdatingLocation()
    return started
  }

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
