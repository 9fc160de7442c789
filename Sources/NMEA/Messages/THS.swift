/// THS: true heading and its status (NMEA 3.0+; HDT's successor).
///
/// ```
///        1   2
///        |   |
/// $--THS,x.x,a*hh
/// ```
/// 1 heading, degrees true · 2 mode: A autonomous, E estimated (dead reckoning), M manual,
/// S simulator, V not valid.
public struct THS: Hashable, Sendable {
  public var talker: Talker
  public var heading: FixedPoint?
  public var mode: UInt8?

  /// Whether the heading may be used (present, and the mode is not V).
  public var isValid: Bool { heading != nil && mode != UInt8(ascii: "V") }
}

extension THS {
  public init(_ sentence: Sentence) throws(NMEAError) { self = try sentence.withView(THS.init) }

  package init(_ sentence: SentenceView) throws(NMEAError) {
    try sentence.require(.ths)
    self = try sentence.withFields { (fields: inout Fields) throws(NMEAError) in
      THS(talker: sentence.talker, heading: try fields.decimal(in: Plausible.direction), mode: try fields.character())
    }
  }
}
