/// The formatter that follows the talker in a sentence's address: `GGA` in `$GPGGA`,
/// `UBX` in `$PUBX`, `MTK001` in `$PMTK001`.
///
/// Up to eight ASCII letters packed into an integer, so comparing types allocates nothing.
public struct SentenceType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The type's ASCII letters, first letter in the highest used byte.
  public var rawValue: UInt64

  public init(rawValue: UInt64) { self.rawValue = rawValue }

  /// Makes a type from its letters, for example `SentenceType("GGA")`. At most eight are kept.
  public init(_ letters: StaticString) {
    var raw: UInt64 = 0
    letters.withUTF8Buffer { for byte in $0.prefix(8) { raw = raw << 8 | UInt64(byte) } }
    self.rawValue = raw
  }

  public var description: String {
    var bytes: [UInt8] = []
    var raw = rawValue
    while raw != 0 {
      bytes.append(UInt8(truncatingIfNeeded: raw))
      raw >>= 8
    }
    return String(decoding: bytes.reversed(), as: UTF8.self)
  }

  public static let gga = SentenceType("GGA")
  public static let rmc = SentenceType("RMC")
  public static let gsa = SentenceType("GSA")
  public static let gsv = SentenceType("GSV")
  public static let vtg = SentenceType("VTG")
  public static let gll = SentenceType("GLL")
  public static let zda = SentenceType("ZDA")
  public static let gns = SentenceType("GNS")
  public static let gst = SentenceType("GST")
  public static let hdt = SentenceType("HDT")
  public static let ths = SentenceType("THS")
  public static let txt = SentenceType("TXT")
}
