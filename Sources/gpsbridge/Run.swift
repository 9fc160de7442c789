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

/// The manager for a source choice, and a name for the status line.
func openSource(_ choice: SourceChoice) async -> (LocationManager, String) {
  switch choice {
  case .replay(let path, let speed):
    return (.replay(capture: .file(path), speed: speed), path == "-" ? "replay of standard input" : "replay \(path)")
  case .device(let path, let baud):
    return (deviceManager(path: path, baud: baud), path)
  case .gpsd(let host, let port):
    return (gpsdManager(host: host, port: port), "gpsd \(host):\(port)")
  case .automatic:
    if let device = await firstReceiver() {
      Terminal.diagnostic("gpsbridge: using the receiver at \(device).")
      return (deviceManager(path: device, baud: .automatic), device)
    }
    if await gpsdAnswers(host: "127.0.0.1", port: defaultGPSDPort) {
      Terminal.diagnostic("gpsbridge: using gpsd on 127.0.0.1:\(defaultGPSDPort).")
      return (gpsdManager(host: "127.0.0.1", port: defaultGPSDPort), "gpsd 127.0.0.1:\(defaultGPSDPort)")
    }
    Terminal.diagnostic(
      "gpsbridge: no GPS receiver found and no gpsd on 127.0.0.1:\(defaultGPSDPort); replaying \(demoCaptureName) in real time.\n"
        + "gpsbridge: plug in a receiver (see 'gpsbridge devices'), or use --device PATH, --gpsd HOST or --replay FILE.")
    let bytes = demoCapture.withUTF8Buffer { Array($0) }
    return (.replay(capture: .bytes(bytes, name: "demo drive")), "demo drive (replay)")
  }
}

struct RegionFileError: Error, CustomStringConvertible {
  var description: String
}

/// A JSON array of regions, as `Region`'s Codable form.
func readRegions(_ path: String) throws -> [Region] {
  guard let data = FileManager.default.contents(atPath: path) else {
    throw RegionFileError(description: "Cannot read the regions file \(path).")
  }
  do {
    return try JSONDecoder().decode([Region].self, from: data)
  } catch {
    throw RegionFileError(description: "\(path) is not a JSON array of regions like [{\"identifier\": \"home\", \"center\": {\"latitude\": 47.3769, \"longitude\": 8.5417}, \"radius\": 100}]: \(error)")
  }
}
