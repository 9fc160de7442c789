/// What kind of receiver a simulation imitates: which sentences it sends, in which order, with
/// how many decimals, at what rate.
public struct ReceiverProfile: Hashable, Sendable, CustomStringConvertible {
  enum Kind: Hashable, Sendable {
    case ublox, ublox8, mtk, sirf, ggaOnly, marine, rtk
  }

  let kind: Kind
  /// The name `gpsbridge simulate --profile` takes.
  public let name: String
  /// One line about the receiver.
  public let summary: String
  /// Epochs per second unless the simulation says otherwise.
  public let defaultRate: Double

  /// A u-blox generation 9 in NMEA 4.10: GN talker for the solution; RMC, VTG, GGA, one GSA
  /// per constellation with its system ID, GSV groups with signal IDs, GLL; 1 Hz. Simulated
  /// live, it answers `CFG-VALGET` and `CFG-VALSET` as a ZED-F9P does.
  public static let ublox = ReceiverProfile(
    kind: .ublox, name: "ublox", summary: "u-blox generation 9 (ZED-F9P), NMEA 4.10, GPS + GLONASS, 1 Hz", defaultRate: 1)
  /// A u-blox M8 sending what ``ublox`` sends; simulated live, it answers the older `CFG-PRT`,
  /// `CFG-RATE`, `CFG-MSG`, `CFG-GNSS`, `CFG-NAV5`, `CFG-TP5` and `CFG-CFG` as a NEO-M8N does.
  public static let ublox8 = ReceiverProfile(
    kind: .ublox8, name: "ublox8", summary: "u-blox M8 (NEO-M8N), NMEA 4.10, GPS + GLONASS, 1 Hz", defaultRate: 1)
  /// A MediaTek MT3333 in NMEA 3.01: GN RMC, VTG and GGA, a GSA and GSV per system with its
  /// own talker, GLL; 1 Hz. Simulated live, it answers `PMTK` commands.
  public static let mtk = ReceiverProfile(
    kind: .mtk, name: "mtk", summary: "MediaTek MT3333, NMEA 3.01, GPS + GLONASS, answers PMTK, 1 Hz", defaultRate: 1)
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
  public static let all: [ReceiverProfile] = [.ublox, .ublox8, .mtk, .sirf, .ggaOnly, .marine, .rtk]

  /// The profile called `name`, if any.
  public static func named(_ name: String) -> ReceiverProfile? {
    all.first { $0.name == name }
  }

  public var description: String { name }
}

extension ReceiverProfile {
  /// The configuration this profile's receiver answers when simulated live, at its defaults
  /// (`rate` epochs a second); `nil` for profiles that take no commands. With `onUSB`, a
  /// u-blox is read on its USB port, where only that port's settings change what it sends.
  public func responder(rate: Int = 1, baud: Int = 9600, fault: ResponderFault? = nil, onUSB: Bool = false) -> (any ReceiverResponder)? {
    switch kind {
    case .ublox: UBloxResponder(rate: rate, baud: baud, fault: fault, onUSB: onUSB)
    case .ublox8: UBlox8Responder(rate: rate, baud: baud, fault: fault, onUSB: onUSB)
    case .mtk: MTKResponder(rate: rate, fault: fault)
    case .sirf: SiRFResponder(fault: fault)
    case .rtk: RTKResponder(rate: rate)
    case .ggaOnly, .marine: nil
    }
  }

  /// What its live receiver takes, for people: "UBX configuration", "PMTK commands".
  public var commands: String? {
    switch kind {
    case .ublox: "UBX configuration (CFG-VALGET, CFG-VALSET)"
    case .ublox8: "UBX configuration (CFG-PRT, CFG-RATE, CFG-MSG…)"
    case .mtk: "PMTK commands"
    case .sirf: "PSRF commands"
    case .rtk: "RTCM 3 corrections"
    case .ggaOnly, .marine: nil
    }
  }
}
