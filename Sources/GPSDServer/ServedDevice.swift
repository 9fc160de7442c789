import GPSD
import NMEA

/// The receiver a server serves, as its `DEVICE` reports describe it.
struct ServedDevice: Hashable, Sendable {
  /// Its path as clients see it: the device node, a capture's path, or `gpsd://host:port`.
  var path: String
  /// When it (last) came online.
  var activated: UTCTimestamp
  /// The serial speed, when known.
  var bitsPerSecond: Int?
  /// Seconds between fixes.
  var cycle = 1.0
  /// Whether it is a replay or the simulator, not a receiver (`subtype` says `simulated`).
  var isSimulated = false

  /// Its `DEVICE` report: a tty's line settings when its speed is known (8N1, NMEA).
  var report: GPSDReport.Device {
    let serial = bitsPerSecond != nil
    return GPSDReport.Device(
      path: path, driver: "NMEA0183", activated: activated.description, flags: 1, native: serial ? 0 : nil,
      bitsPerSecond: bitsPerSecond, parity: serial ? "N" : nil, stopBits: serial ? 1 : nil, cycle: cycle,
      subtype: isSimulated ? "simulated" : nil)
  }
}
