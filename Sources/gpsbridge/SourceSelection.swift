import GPSD
import GPSLocation
import NMEASimulation
import Plumbing

/// A source opened for the run: its manager, a name for the status line, what it rejects,
/// and whether it is the demo drive.
struct OpenedSource {
  var manager: LocationManager
  var name: String
  var rejects: RejectedInput?
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
    return OpenedSource(
      manager: .replayWithoutLeadIn(capture: .file(path), speed: speed, configuration: configuration),
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
    return OpenedSource(
      manager: .replayWithoutLeadIn(capture: .simulated(.demoDrive), speed: .realTime, configuration: demo), name: "demo drive (simulated)",
      isDemo: true)
  }
}

/// The demo's stop at the shop lasts 45 s: a visit of at least 20 s shows within the first
/// minute (a real visit needs 5 minutes).
let demoVisitDwell: Double = 20

/// The options that make the demo what it is, as a user would type them.
func demoOptions(visitDwell: Double) -> String {
  "--heading --visits --visit-dwell \(Int(visitDwell)) --regions Fixtures/demo.regions.json"
}

/// A serial receiver, telling the terminal what autobaud found.
func serialSource(path: String, baud: BaudRate, configuration: LocationEngine.Configuration) -> OpenedSource {
  let rejects = RejectedInput()
  let manager = LocationManager.serial(path: path, baudRate: baud, timing: .init(), configuration: configuration, rejects: rejects) {
    notice in Terminal.diagnostic("gpsbridge: \(notice)")
  }
  return OpenedSource(manager: manager, name: path, rejects: rejects)
}

func gpsdSource(_ address: GPSDAddress, configuration: LocationEngine.Configuration, viaLibGPS: Bool = false) -> OpenedSource {
  let rejects = RejectedInput()
  #if libgps
    if viaLibGPS {
      return OpenedSource(
        manager: .libgps(host: address.host, port: address.port, timing: .init(), configuration: configuration, rejects: rejects),
        name: "gpsd \(address) via libgps", rejects: rejects)
    }
  #endif
  return OpenedSource(
    manager: .gpsd(host: address.host, port: address.port, timing: .init(), configuration: configuration, rejects: rejects),
    name: "gpsd \(address)", rejects: rejects)
}
