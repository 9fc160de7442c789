import GPSD
import GPSLocation
import Station

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A source opened for the run: its manager, a name for the status line, the status line,
/// and whether it is the demo drive.
struct OpenedSource {
  var manager: LocationManager
  /// The receiver the manager follows.
  var receiver: Receiver
  /// Whether it is a serial receiver, which can be written to (RTK corrections).
  var isSerial = false
  /// The receiver's name where other programs see it (MQTT topics): its device path, the
  /// capture's file, `gpsd://HOST:PORT`, or `demo`.
  var device = "demo"
  var name: String
  /// The status line that follows the source's receiver.
  var status: StatusLine?
  var isDemo = false
}

/// The manager for a source choice, its engine set up as `configuration` says. With no source
/// named it follows the station's one policy (``SourceChoice/resolved(gpsd:discovery:fallsBackToDemo:)``:
/// the receiver plugged in, else gpsd on localhost), and says which on stderr. With neither,
/// a person at a terminal gets the demo drive (with ``demoVisitDwell`` unless a dwell was
/// given); output that another program reads (`demoAllowed` false: piped, or `--json`) must
/// never hold a made-up location, so the run waits for a receiver to be plugged in.
/// `nil` when the run was cancelled while waiting.
func openSource(
  _ choice: SourceChoice, configuration: LocationEngine.Configuration, visitDwellGiven: Bool, viaLibGPS: Bool = false,
  demoAllowed: Bool
) async -> OpenedSource? {
  let discovery = DeviceDiscovery.ofThisMachine
  var found = await choice.resolved(discovery: discovery, fallsBackToDemo: demoAllowed)
  if found == nil {
    Terminal.diagnostic(
      "gpsbridge: no receiver and no gpsd on \(GPSDAddress.standard): waiting for a receiver to be plugged in"
        + " (name one with --device PATH, or see the simulated demo drive with --demo).")
    found = await SourceChoice.waitForReceiver(discovery: discovery)
  }
  guard let chosen = found else { return nil }
  switch chosen.reason {
  case .named: break
  case .foundReceiver: Terminal.diagnostic("gpsbridge: using the receiver at \(chosen.name).")
  case .foundGPSD: Terminal.diagnostic("gpsbridge: using gpsd on \(GPSDAddress.standard).")
  case .demo:
    var demo = configuration
    if !visitDwellGiven { demo.visitMinimumDwell = demoVisitDwell }
    Terminal.diagnostic(
      (choice == .demo ? "gpsbridge: this" : "gpsbridge: no receiver and no gpsd on \(GPSDAddress.standard), so this")
        + " is a simulated drive in real time, not a receiver, shown with "
        + demoOptions(visitDwell: demo.visitMinimumDwell) + "; add --device PATH to see your own receiver the same way.")
    var source = opened(chosen.source.receiver, configuration: demo, name: chosen.name, showsStatus: demoAllowed)
    source.isDemo = true
    source.device = "demo"
    return source
  }
  #if libgps
    if viaLibGPS, case .gpsd(let host, let port) = chosen.source {
      var source = opened(
        Receiver(GPSDSource(host: host, port: port, throughLibGPS: true)), configuration: configuration, name: chosen.name + " via libgps",
        showsStatus: demoAllowed)
      source.device = chosen.source.device
      return source
    }
  #endif
  var source = opened(chosen.source.receiver, configuration: configuration, name: chosen.name, showsStatus: demoAllowed)
  if case .serial = chosen.source { source.isSerial = true }
  source.device = chosen.source.device
  return source
}

/// The demo's stop at the shop lasts 45 s: a visit of at least 20 s shows within the first
/// minute (a real visit needs 5 minutes).
let demoVisitDwell: Double = 20

/// The options that make the demo what it is, as a user would type them, its regions file
/// named by a path that works from anywhere (the package's copy, or the source checkout's).
func demoOptions(visitDwell: Double) -> String {
  "--heading --visits --visit-dwell \(Int(visitDwell)) --regions \(demoRegionsFile)"
}

/// Where the demo drive's regions file is: the installed package's, one beside the program's
/// prefix, the working directory's checkout, else the checkout the program was built from, by
/// its absolute path.
var demoRegionsFile: String {
  let name = "demo.regions.json"
  var candidates = ["/usr/share/gpsbridge/" + name]
  if let program = realpath("/proc/self/exe", nil) {
    let path = String(cString: program)
    free(program)
    let bin = path.split(separator: "/").dropLast().joined(separator: "/")
    candidates.append("/" + bin + "/../share/gpsbridge/" + name)
  }
  if let directory = getcwd(nil, 0) {
    candidates.append(String(cString: directory) + "/Fixtures/" + name)
    free(directory)
  }
  // The checkout this program was built from, wherever it is run.
  candidates.append(String(#filePath).split(separator: "/").dropLast(3).map { "/" + $0 }.joined() + "/Fixtures/" + name)
  return candidates.first { access($0, R_OK) == 0 } ?? "Fixtures/" + name
}

/// The manager for `source`, its receiver telling the terminal its progress ("NMEA at 9600
/// baud") and, when `showsStatus` (text on a terminal), followed by the status line: a run
/// whose output a program reads pays nothing for a line nobody sees.
func opened(_ receiver: Receiver, configuration: LocationEngine.Configuration, name: String, showsStatus: Bool) -> OpenedSource {
  receiver.listen(wanting: []) { event in
    if case .notice(let notice) = event { Terminal.diagnostic("gpsbridge: \(notice)") }
  }
  let status = showsStatus ? StatusLine(sourceName: name, receiver: receiver) : nil
  return OpenedSource(manager: .receiver(receiver, configuration: configuration), receiver: receiver, name: name, status: status)
}
