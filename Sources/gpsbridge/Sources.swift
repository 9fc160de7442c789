import GPSLocation

/// A serial receiver, telling the terminal what autobaud found.
func deviceManager(path: String, baud: BaudChoice) -> LocationManager {
  .serial(path: path, baudRate: baud.baudRate) { notice in Terminal.diagnostic("gpsbridge: \(notice)") }
}

extension BaudChoice {
  var baudRate: BaudRate {
    switch self {
    case .automatic: .automatic
    case .fixed(let rate): .fixed(rate)
    }
  }
}

func gpsdManager(host: String, port: Int) -> LocationManager {
  unavailableManager("gpsd is not supported yet (\(host):\(port)); use --device PATH or --replay FILE.")
}

/// The receiver to use when none was named: a known GPS receiver, or a serial device whose
/// USB product string says GPS/GNSS.
func firstReceiver() async -> String? {
  DeviceDiscovery().preferredReceiver()?.path
}

func gpsdAnswers(host: String, port: Int) async -> Bool { false }

func unavailableManager(_ message: String) -> LocationManager {
  let (stream, continuation) = AsyncStream.makeStream(of: LocationManager.Action.self)
  continuation.yield(.didFailWithError(.init(.denied, message)))
  var manager = LocationManager.noop
  manager.delegate = { stream }
  return manager
}
