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
  let (manager, name) = await openSource(options.source)
  var output: any ActionOutput = options.json ? JSONLinesOutput() : TextOutput(sourceName: name)
  defer { output.finish() }
  let stream = manager.delegate()
  if options.desiredAccuracy != nil || options.distanceFilter != nil {
    await manager.set(desiredAccuracy: options.desiredAccuracy, distanceFilter: options.distanceFilter)
  }
  if options.once {
    await manager.requestLocation()
  } else {
    for region in regions { await manager.startMonitoringForRegion(region) }
    if options.visits { await manager.startMonitoringVisits() }
    if options.significantChanges { await manager.startMonitoringSignificantLocationChanges() }
    if options.heading { await manager.startUpdatingHeading() }
    await manager.startUpdatingLocation()
  }

  var status: Int32 = 0
  for await action in stream {
    output.write(action)
    if case .didUpdateLocations = action, options.once { break }
    if case .didFailWithError(let error) = action {
      switch error.code {
      case .endOfCapture:
        if options.once { status = 1 }
      case .denied:
        status = 1
      case .locationUnknown where options.once:
        status = 1
      default:
        continue
      }
      if status != 0 { Terminal.diagnostic("Error: \(error.message)") }
      break
    }
  }
  await stopEverything(manager, regions: regions)
  return status
}

/// Stops every activity so the source is released (the device closed, its settings restored).
func stopEverything(_ manager: LocationManager, regions: [Region]) async {
  await manager.stopUpdatingLocation()
  await manager.stopUpdatingHeading()
  await manager.stopMonitoringVisits()
  await manager.stopMonitoringSignificantLocationChanges()
  for region in regions { await manager.stopMonitoringForRegion(region) }
  // The source closes in its own task; give it a moment to restore the device's settings.
  try? await Task.sleep(for: .milliseconds(50))
}
