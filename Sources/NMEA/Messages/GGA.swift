/// GGA: time, position, fix quality and altitude — the core fix sentence.
///
/// ```
///        1         2       3 4        5 6 7  8   9   10 11 12 13  14
///        |         |       | |        | | |  |   |   |  |  |  |   |
/// $--GGA,hhmmss.ss,ddmm.mm,a,dddmm.mm,a,x,xx,x.x,x.x,M,x.x,M,x.x,xxxx*hh
/// ```
/// 1 UTC time · 2–3 latitude · 4–5 longitude · 6 quality (0 none, 1 GPS, 2 DGPS, 4 RTK
/// fixed, 5 RTK float, 6 dead reckoning …) · 7 satellites used · 8 HDOP · 9–10 altitude
/// above mean sea level, metres · 11–12 geoid separation (ellipsoid minus MSL), metres ·
/// 13 age of differential corrections, s · 14 differential station ID.
///
/// Reference: gpsd's "NMEA 0183 Revealed" (https://gpsd.gitlab.io/gpsd/NMEA.html).
public struct GGA: Hashable, Sendable {
  public var talker: Talker
  public var time: UTCTime?
  public var latitude: Coordinate?
  public var longitude: Coordinate?
  public var quality: FixQuality?
  public var satellitesUsed: Int?
  public var hdop: FixedPoint?
  /// Metres above mean sea level.
  public var altitude: FixedPoint?
  /// Metres from the WGS-84 ellipsoid up to mean sea level.
  public var geoidSeparation: FixedPoint?
  public var differentialAge: FixedPoint?
  public var differentialStation: Int?
}

extension GGA {
  public init(_ sentence: Sentence) throws(NMEAError) { self = try sentence.withView(GGA.init) }

  package init(_ sentence: SentenceView) throws(NMEAError) {
    try sentence.require(.gga)
    self = try sentence.withFields { (fields: inout Fields) throws(NMEAError) in
      GGA(
        talker: sentence.talker,
        time: try fields.time(),
        latitude: try fields.latitude(),
        longitude: try fields.longitude(),
        quality: try fields.ggaQuality(),
        satellitesUsed: try fields.integer(),
        hdop: try fields.decimal(in: Plausible.dilution),
        altitude: try fields.decimal(unit: UInt8(ascii: "M"), in: Plausible.altitude),
        geoidSeparation: try fields.decimal(unit: UInt8(ascii: "M"), in: Plausible.geoidSeparation),
        differentialAge: try fields.decimal(),
        differentialStation: try fields.integer())
    }
  }
}

extension Fields {
  /// GGA's numeric quality indicator.
  mutating func ggaQuality() throws(NMEAError) -> FixQuality? {
    guard let value = try integer() else { return nil }
    guard let quality = FixQuality(ggaIndicator: value) else { throw invalid }
    return quality
  }
}
