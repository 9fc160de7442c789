/// What kind of receiver a simulation imitates: which sentences it sends, in which order, with
/// how many decimals, at what rate.
public struct ReceiverProfile: Hashable, Sendable, CustomStringConvertible {
  enum Kind: Hashable, Sendable {
    case ublox, sirf, ggaOnly, marine, rtk
  }

  let kind: Kind
  /// The name `gpsbridge simulate --profile` takes.
  public let name: String
  /// One line about the receiver.
  public let summary: String
  /// Epochs per second unless the simulation says otherwise.
  public let defaultRate: Double

  /// A u-blox M8/M9 in NMEA 4.10: GN talker for the solution; RMC, VTG, GGA, one GSA per
  /// constellation with its system ID, GSV groups with signal IDs, GLL; 1 Hz.
  public static let ublox = ReceiverProfile(
    kind: .ublox, name: "ublox", summary: "u-blox M8/M9, NMEA 4.10, GPS + GLONASS, 1 Hz", defaultRate: 1)
  /// A SiRF-era receiver in NMEA 2.2: GPS only, GGA, GSA, GSV, then RMC without a mode field; 1 Hz.
  public static let sirf = ReceiverProfile(
    kind: .sirf, name: "sirf", summary: "SiRF III, NMEA 2.2, GPS only, 1 Hz", defaultRate: 1)
  /// A bare receiver that sends only GGA (the date comes from the capture's `# Date:`); 5 Hz.
  public static let ggaOnly = ReceiverProfile(
    kind: .ggaOnly, name: "gga", summary: "GGA only (date from the capture's header), 5 Hz", defaultRate: 5)
  /// A chart plotter's receiver with a heading sensor: RMC, GGA, GSA, GSV, a gyro's HDT and
  /// Garmin's $PGRME; 1 Hz.
  public static let marine = ReceiverProfile(
    kind: .marine, name: "marine", summary: "marine GPS with a heading sensor (HDT), DGPS, 1 Hz", defaultRate: 1)
  /// An RTK receiver in NMEA 4.11: RMC with navigation status, GGA with RTK quality, GSA with
  /// system IDs for GPS, Galileo and BeiDou, GST every epoch, GSV only on whole seconds; 10 Hz.
  public static let rtk = ReceiverProfile(
    kind: .rtk, name: "rtk", summary: "RTK receiver, NMEA 4.11, GPS + Galileo + BeiDou, with GST, 10 Hz", defaultRate: 10)

  /// Every profile, in the order `gpsbridge simulate --help` lists them.
  public static let all: [ReceiverProfile] = [.ublox, .sirf, .ggaOnly, .marine, .rtk]

  /// The profile called `name`, if any.
  public static func named(_ name: String) -> ReceiverProfile? {
    all.first { $0.name == name }
  }

  public var description: String { name }
}
