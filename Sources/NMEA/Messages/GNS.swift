/// GNS: a multi-constellation fix — GGA's successor for GNSS receivers.
///
/// ```
///        1         2       3 4        5 6    7  8   9   10  11  12   13
///        |         |       | |        | |    |  |   |   |   |   |    |
/// $--GNS,hhmmss.ss,ddmm.mm,a,dddmm.mm,a,c--c,xx,x.x,x.x,x.x,x.x,xxxx,a*hh
/// ```
/// 1 UTC time · 2–3 latitude · 4–5 longitude · 6 one mode letter per constellation, in the
/// order GPS, GLONASS, Galileo, BeiDou, QZSS, NavIC · 7 satellites used · 8 HDOP ·
/// 9 altitude above mean sea level, m · 10 geoid separation, m · 11 age of differential
/// data · 12 differential station · 13 navigation status (NMEA 4.1+).
public struct GNS: Hashable, Sendable {
  public var talker: Talker
  public var time: UTCTime?
  public var latitude: Coordinate?
  public var longitude: Coordinate?
  /// The best of the per-constellation modes (RTK fixed over float over DGPS over autonomous).
  public var mode: FixQuality?
  public var satellitesUsed: Int?
  public var hdop: FixedPoint?
  public var altitude: FixedPoint?
  public var geoidSeparation: FixedPoint?
  public var differentialAge: FixedPoint?
  public var differentialStation: Int?
  public var navigationStatus: UInt8?
}

extension GNS {
  public init(_ sentence: Sentence) throws(NMEAError) { self = try sentence.withView(GNS.init) }

  package init(_ sentence: SentenceView) throws(NMEAError) {
    try sentence.require(.gns)
    self = try sentence.withFields { (fields: inout Fields) throws(NMEAError) in
      GNS(
        talker: sentence.talker,
        time: try fields.time(),
        latitude: try fields.latitude(),
        longitude: try fields.longitude(),
        mode: try fields.bestMode(),
        satellitesUsed: try fields.integer(),
        hdop: try fields.decimal(in: Plausible.dilution),
        altitude: try fields.decimal(in: Plausible.altitude),
        geoidSeparation: try fields.decimal(in: Plausible.geoidSeparation),
        differentialAge: try fields.decimal(),
        differentialStation: try fields.integer(),
        navigationStatus: try fields.character())
    }
  }
}

extension Fields {
  /// GNS's string of mode letters, reduced to the best one.
  mutating func bestMode() throws(NMEAError) -> FixQuality? {
    let field = next()
    guard !field.isEmpty, field.count <= 8 else {
      if field.isEmpty { return nil }
      throw field.invalid
    }
    func rank(_ quality: FixQuality) -> Int {
      switch quality {
      case .invalid: 0
      case .manual, .simulator, .deadReckoning: 1
      case .gps: 2
      case .dgps, .pps: 3
      case .rtkFloat: 4
      case .rtkFixed: 5
      }
    }
    var best: FixQuality?
    for index in field.start..<field.end {
      guard let quality = FixQuality(modeIndicator: field.base[index]) else { throw field.invalid }
      if best.map({ rank(quality) > rank($0) }) ?? true { best = quality }
    }
    return best
  }
}
