/// The two letters at the start of a sentence's address that name the system that sent it:
/// `GP` in `$GPGGA`, `GN` (several constellations combined) in `$GNRMC`.
///
/// Stored as the packed ASCII bytes so that reading it from a sentence allocates nothing.
/// Proprietary sentences (`$PUBX`, `$PGRME`) have the one-letter talker ``proprietary``.
public struct Talker: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The talker's ASCII letters, first letter in the high byte.
  public var rawValue: UInt16

  public init(rawValue: UInt16) { self.rawValue = rawValue }

  /// Makes a talker from its letters, for example `Talker("GN")`. Only the first two are kept.
  public init(_ letters: StaticString) {
    var raw: UInt16 = 0
    letters.withUTF8Buffer { for byte in $0.prefix(2) { raw = raw << 8 | UInt16(byte) } }
    self.rawValue = raw
  }

  public var description: String {
    let high = UInt8(truncatingIfNeeded: rawValue >> 8)
    let low = UInt8(truncatingIfNeeded: rawValue)
    return String(decoding: high == 0 ? [low] : [high, low], as: UTF8.self)
  }

  public static let gps = Talker("GP")
  public static let glonass = Talker("GL")
  public static let galileo = Talker("GA")
  public static let beidou = Talker("GB")
  public static let beidouLegacy = Talker("BD")
  public static let qzss = Talker("GQ")
  public static let qzssLegacy = Talker("QZ")
  public static let navic = Talker("GI")
  public static let navicLegacy = Talker("IN")
  /// Several constellations combined in one solution.
  public static let combined = Talker("GN")
  public static let integratedInstrumentation = Talker("II")
  public static let proprietary = Talker("P")

  /// The constellation this talker speaks for, or `nil` for combined and non-GNSS talkers.
  public var constellation: Constellation? {
    switch self {
    case .gps: .gps
    case .glonass: .glonass
    case .galileo: .galileo
    case .beidou, .beidouLegacy: .beidou
    case .qzss, .qzssLegacy: .qzss
    case .navic, .navicLegacy: .navic
    default: nil
    }
  }
}
