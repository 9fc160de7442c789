/// GLL: geographic position and the time it was computed.
///
/// ```
///        1       2 3        4 5         6 7
///        |       | |        | |         | |
/// $--GLL,ddmm.mm,a,dddmm.mm,a,hhmmss.ss,A,m*hh
/// ```
/// 1–2 latitude · 3–4 longitude · 5 UTC time · 6 status (A valid, V void; NMEA 2.0+) ·
/// 7 mode indicator (NMEA 2.3+).
public struct GLL: Hashable, Sendable {
  public var talker: Talker
  public var latitude: Coordinate?
  public var longitude: Coordinate?
  public var time: UTCTime?
  public var isValid: Bool?
  public var mode: FixQuality?
}

extension GLL {
  public init(_ sentence: Sentence) throws(NMEAError) { self = try sentence.withView(GLL.init) }

  package init(_ sentence: SentenceView) throws(NMEAError) {
    try sentence.require(.gll)
    self = try sentence.withFields { (fields: inout Fields) throws(NMEAError) in
      GLL(
        talker: sentence.talker,
        latitude: try fields.latitude(),
        longitude: try fields.longitude(),
        time: try fields.time(),
        isValid: try fields.status(),
        mode: try fields.modeIndicator())
    }
  }
}
