/// How a position was obtained, from GGA's quality indicator or the mode indicator of RMC,
/// GLL, GNS and VTG (NMEA 2.3 and later).
public enum FixQuality: String, Hashable, Sendable, Codable, CaseIterable {
  /// No fix.
  case invalid
  /// Autonomous GNSS.
  case gps
  /// Differential corrections (DGPS, SBAS).
  case dgps
  /// Precise (PPS / military) service.
  case pps
  /// Real-time kinematic with integer ambiguities fixed: centimetres.
  case rtkFixed
  /// Real-time kinematic, float solution: decimetres.
  case rtkFloat
  /// Estimated by dead reckoning.
  case deadReckoning
  /// Entered by hand.
  case manual
  /// From a simulator.
  case simulator

  /// GGA field 6: `0`–`8`.
  public init?(ggaIndicator: Int) {
    switch ggaIndicator {
    case 0: self = .invalid
    case 1: self = .gps
    case 2: self = .dgps
    case 3: self = .pps
    case 4: self = .rtkFixed
    case 5: self = .rtkFloat
    case 6: self = .deadReckoning
    case 7: self = .manual
    case 8: self = .simulator
    default: return nil
    }
  }

  /// GGA field 6 for this quality: `0`–`8` (the inverse of ``init(ggaIndicator:)``).
  package var ggaIndicator: Int {
    switch self {
    case .invalid: 0
    case .gps: 1
    case .dgps: 2
    case .pps: 3
    case .rtkFixed: 4
    case .rtkFloat: 5
    case .deadReckoning: 6
    case .manual: 7
    case .simulator: 8
    }
  }

  /// The FAA mode indicator letter of NMEA 2.3 and later.
  public init?(modeIndicator: UInt8) {
    switch modeIndicator {
    case UInt8(ascii: "A"): self = .gps
    case UInt8(ascii: "D"): self = .dgps
    case UInt8(ascii: "E"): self = .deadReckoning
    case UInt8(ascii: "F"): self = .rtkFloat
    case UInt8(ascii: "M"): self = .manual
    case UInt8(ascii: "N"): self = .invalid
    case UInt8(ascii: "P"): self = .pps
    case UInt8(ascii: "R"): self = .rtkFixed
    case UInt8(ascii: "S"): self = .simulator
    default: return nil
    }
  }

  /// Whether this quality carries a usable position.
  public var hasPosition: Bool { self != .invalid }

  /// The quality for people: "GPS", "DGPS", "RTK float", "RTK fixed", "no fix"…
  public var name: String {
    switch self {
    case .invalid: "no fix"
    case .gps: "GPS"
    case .dgps: "DGPS"
    case .pps: "PPS"
    case .rtkFixed: "RTK fixed"
    case .rtkFloat: "RTK float"
    case .deadReckoning: "dead reckoning"
    case .manual: "manual"
    case .simulator: "simulated"
    }
  }
}
