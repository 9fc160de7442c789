import GPSD
import GPSLocation
import NMEASimulation
import Plumbing

/// A source opened for the run: its manager, a name for the status line, the status line,
/// and whether it is the demo drive.
struct OpenedSource {
  var manager: LocationManager
  var name: String
  /// The status line that follows the source's receiver.
  var status: StatusLine?
  var isDemo = false
}

/// The manager for a source choice, its engine set up as `configuration` says. With no source
/// named it uses the first receiver found, else gpsd on localhost, else the demo drive (with
/// ``demoVisitDwell`` unless a dwell was given), and says which on stderr.
func openSource(
  _ choice: SourceChoice, configuration: LocationEngine.Configuration, visitDwellGiven: Bool, viaLibGPS: Bool = false
) async -> OpenedSource {
  switch choice {
  case .replay(let path, let speed):
    return opened(
      ReplaySource(capture: .file(path), speed: speed, clock: ContinuousClock()), configuration: configuration,
      name: path == "-" ? "replay of standard input" : "replay \(path)")
  case .device(let path, let baud):
    return serialSource(path: path, baud: baud, configuration: configuration)
  case .gpsd(let address):
    return gpsdSource(address, configuration: configuration, viaLibGPS: viaLibGPS)
  case .automatic:
    if let device = DeviceDiscovery().preferredReceiver()?.path {
      Terminal.diagnostic("gpsbridge: using the receiver at \(device).")
      return serialSource(path: device, baud: .automatic, configuration: configuration)
    }
    let address = GPSDAddress.standard
    if await GPSDSource(host: address.host, port: address.port).isPresent() {
      Terminal.diagnostic("gpsbridge: using gpsd on \(address).")
      return gpsdSource(address, configuration: configuration)
    }
    var demo = configuration
    if !visitDwellGiven { demo.visitMinimumDwell = demoVisitDwell }
    Terminal.diagnostic(
      "gpsbridge: no receiver and no gpsd on \(address), so this is a simulated drive in real time, shown with "
        + demoOptions(visitDwell: demo.visitMinimumDwell) + "; add --device PATH to see your own receiver the same way.")
    var source = opened(
      ReplaySource(capture: .simulated(.demoDrive), speed: .realTime, clock: ContinuousClock()), configuration: demo,
      name: "demo drive (simulated)")
    source.isDemo = true
    return source
  }
}

/// The demo's stop at the shop lasts 45 s: a visit of at least 20 s shows within the first
/// minute (a real visit needs 5 minutes).
let demoVisitDwell: Double = 20

/// The options that make the demo what it is, as a user would type them.
func demoOptions(visitDwell: Double) -> String {
  "--heading --visits --visit-dwell \(Int(visitDwell)) --regions Fixtures/demo.regions.json"
}

/// A serial receiver.
func serialSource(path: String, baud: BaudRate, configuration: LocationEngine.Configuration) -> OpenedSource {
  opened(SerialSource(path: path, baudRate: baud), configuration: configuration, name: path)
}

func gpsdSource(_ address: GPSDAddress, configuration: LocationEngine.Configuration, viaLibGPS: Bool = false) -> OpenedSource {
  #if libgps
    if viaLibGPS {
      return opened(
        GPSDSource(host: address.host, port: address.port, throughLibGPS: true), configuration: configuration,
        name: "gpsd \(address) via libgps")
    }
  #endif
  return opened(GPSDSource(host: address.host, port: address.port), configuration: configuration, name: "gpsd \(address)")
}

/// The manager for `source`, its receiver telling the terminal its progress ("NMEA at 9600
/// baud") and followed by the status line.
func opened(_ source: some ByteSource, configuration: LocationEngine.Configuration, name: String) -> OpenedSource {
  let receiver = Receiver(source)
  receiver.listen(wanting: []) { event in
    if case .notice(let notice) = event { Terminal.diagnostic("gpsbridge: \(notice)") }
  }
  let status = StatusLine(sourceName: name, receiver: receiver)
  return OpenedSource(manager: .receiver(receiver, configuration: configuration), name: name, status: status)
}
