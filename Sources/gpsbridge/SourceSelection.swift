import GPSD
import GPSLocation
import NMEASimulation
import Plumbing

/// A source opened for the run: its manager, a name for the status line, and what it rejects.
struct OpenedSource {
  var manager: LocationManager
  var name: String
  var rejects: RejectedInput?
}

/// The manager for a source choice. With no source named it uses the first receiver found,
/// else gpsd on localhost, else the demo drive, and says which on stderr.
func openSource(_ choice: SourceChoice) async -> OpenedSource {
  switch choice {
  case .replay(let path, let speed):
    return OpenedSource(
      manager: .replayWithoutLeadIn(capture: .file(path), speed: speed), name: path == "-" ? "replay of standard input" : "replay \(path)")
  case .device(let path, let baud):
    return serialSource(path: path, baud: baud)
  case .gpsd(let address):
    return gpsdSource(address)
  case .automatic:
    if let device = DeviceDiscovery().preferredReceiver()?.path {
      Terminal.diagnostic("gpsbridge: using the receiver at \(device).")
      return serialSource(path: device, baud: .automatic)
    }
    let address = GPSDAddress.standard
    if await GPSDSource(host: address.host, port: address.port).isPresent() {
      Terminal.diagnostic("gpsbridge: using gpsd on \(address).")
      return gpsdSource(address)
    }
    Terminal.diagnostic(
      "gpsbridge: no GPS receiver found and no gpsd on \(address); replaying the bundled demo drive in real time.\n"
        + "gpsbridge: plug in a receiver (see 'gpsbridge devices'), or use --device PATH, --gpsd HOST or --replay FILE.")
    return OpenedSource(manager: .replayWithoutLeadIn(capture: .simulated(.demoDrive), speed: .realTime), name: "demo drive (simulated)")
  }
}

/// A serial receiver, telling the terminal what autobaud found.
func serialSource(path: String, baud: BaudRate) -> OpenedSource {
  let rejects = RejectedInput()
  let manager = LocationManager.serial(path: path, baudRate: baud, timing: .init(), rejects: rejects) { notice in
    Terminal.diagnostic("gpsbridge: \(notice)")
  }
  return OpenedSource(manager: manager, name: path, rejects: rejects)
}

func gpsdSource(_ address: GPSDAddress) -> OpenedSource {
  let rejects = RejectedInput()
  return OpenedSource(
    manager: .gpsd(host: address.host, port: address.port, timing: .init(), rejects: rejects), name: "gpsd \(address)", rejects: rejects)
}
