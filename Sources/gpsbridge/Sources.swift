import GPSLocation

/// The live sources. Until the serial and gpsd transports exist these report that plainly.
func deviceManager(path: String, baud: BaudChoice) -> LocationManager {
  unavailableManager("Serial receivers are not supported yet (\(path)); use --replay FILE.")
}

func gpsdManager(host: String, port: Int) -> LocationManager {
  unavailableManager("gpsd is not supported yet (\(host):\(port)); use --replay FILE.")
}

func firstReceiver() async -> String? { nil }

func gpsdAnswers(host: String, port: Int) async -> Bool { false }

func unavailableManager(_ message: String) -> LocationManager {
  let (stream, continuation) = AsyncStream.makeStream(of: LocationManager.Action.self)
  continuation.yield(.didFailWithError(.init(.denied, message)))
  var manager = LocationManager.noop
  manager.delegate = { stream }
  return manager
}

func listDevices(json: Bool) async -> Int32 {
  Terminal.diagnostic("Error: device discovery is not available yet.")
  return 1
}

func record(_ options: RecordOptions) async -> Int32 {
  Terminal.diagnostic("Error: recording is not available yet.")
  return 1
}
