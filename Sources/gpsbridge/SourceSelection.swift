import GPSD
import GPSLocation
import NMEASimulation
import Plumbing

/// The manager for a source choice, and a name for the status line. With no source named it
/// uses the first receiver found, else gpsd on localhost, else the demo drive, and says which
/// on stderr.
func openSource(_ choice: SourceChoice) async -> (LocationManager, String) {
  switch choice {
  case .replay(let path, let speed):
    return (.replayWithoutLeadIn(capture: .file(path), speed: speed), path == "-" ? "replay of standard input" : "replay \(path)")
  case .device(let path, let baud):
    return (serialManager(path: path, baud: baud), path)
  case .gpsd(let address):
    return (.gpsd(host: address.host, port: address.port), "gpsd \(address)")
  case .automatic:
    if let device = DeviceDiscovery().preferredReceiver()?.path {
      Terminal.diagnostic("gpsbridge: using the receiver at \(device).")
      return (serialManager(path: device, baud: .automatic), device)
    }
    let address = GPSDAddress.standard
    if await GPSDSource(host: address.host, port: address.port).isPresent() {
      Terminal.diagnostic("gpsbridge: using gpsd on \(address).")
      return (.gpsd(host: address.host, port: address.port), "gpsd \(address)")
    }
    Terminal.diagnostic(
      "gpsbridge: no GPS receiver found and no gpsd on \(address); replaying the bundled demo drive in real time.\n"
        + "gpsbridge: plug in a receiver (see 'gpsbridge devices'), or use --device PATH, --gpsd HOST or --replay FILE.")
    return (.replayWithoutLeadIn(capture: .simulated(.demoDrive), speed: .realTime), "demo drive (simulated)")
  }
}

/// A serial receiver, telling the terminal what autobaud found.
func serialManager(path: String, baud: BaudRate) -> LocationManager {
  .serial(path: path, baudRate: baud, timing: .init()) { notice in Terminal.diagnostic("gpsbridge: \(notice)") }
}
