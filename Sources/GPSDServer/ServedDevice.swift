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
}
