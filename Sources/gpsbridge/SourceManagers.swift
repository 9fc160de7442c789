import GPSLocation

/// A serial receiver, telling the terminal what autobaud found.
func deviceManager(path: String, baud: BaudChoice) -> LocationManager {
  .serial(path: path, baudRate: baud.baudRate, timing: .init()) { notice in Terminal.diagnostic("gpsbridge: \(notice)") }
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
  .gpsd(host: host, port: port)
}

/// The receiver to use when none was named: a known GPS receiver, or a serial device whose
/// USB product string says GPS/GNSS.
func firstReceiver() async -> String? {
  DeviceDiscovery().preferredReceiver()?.path
}

/// Whether a gpsd listens at `host:port` (a quick connect, then close).
func gpsdAnswers(host: String, port: Int) async -> Bool {
  await GPSDSource(host: host, port: port).isPresent()
}
