/// RMC: the recommended minimum — time, date, status, position, speed and course.
///
/// ```
///        1         2 3       4 5        6 7   8   9      10  11 12 13
///        |         | |       | |        | |   |   |      |   |  |  |
/// $--RMC,hhmmss.ss,A,ddmm.mm,a,dddmm.mm,a,x.x,x.x,ddmmyy,x.x,a,m,s*hh
/// ```
/// 1 UTC time · 2 status (A valid, V void) · 3–4 latitude · 5–6 longitude · 7 speed over
/// ground, knots · 8 course over ground, degrees true · 9 date · 10–11 magnetic variation,
/// degrees E/W · 12 mode indicator (NMEA 2.3+) · 13 navigation status (NMEA 4.1+).
/// Fields 12 and 13 are absent from older receivers' sentences and read as unknown.
///
/// Reference: https://gpsd.gitlab.io/gpsd/NMEA.html
public struct RMC: Hashable, Sendable {
  public var talker: Talker
  public var time: UTCTime?
  /// `true` for status A, `false` for V (no fix, or a warning).
  public var isValid: Bool?
  public var latitude: Coordinate?
  public var longitude: Coordinate?
  public var speedKnots: FixedPoint?
  /// Degrees clockwise from true north.
  public var course: FixedPoint?
  public var date: UTCDate?
  /// Degrees, east positive: magnetic heading = true heading − variation.
  public var magneticVariation: FixedPoint?
  public var mode: FixQuality?
  /// NMEA 4.1 navigation status letter (`S` safe, `C` caution, `U` unsafe, `V` not valid).
  public var navigationStatus: UInt8?
}

extension RMC {
  public init(_ sentence: Sentence) throws(NMEAError) { self = try sentence.withView(RMC.init) }

  package init(_ sentence: SentenceView) throws(NMEAError) {
    try sentence.require(.rmc)
    self = try sentence.withFields { (fields: inout Fields) throws(NMEAError) in
      var rmc = RMC(
        talker: sentence.talker,
        time: try fields.time(),
        isValid: try fields.status(),
        latitude: try fields.latitude(),
        longitude: try fields.longitude(),
        speedKnots: try fields.decimal(in: Plausible.speedKnots),
        course: try fields.decimal(in: Plausible.direction),
        date: try fields.date())
      if let mode = Self.modeInPlaceOfDirection(fields) {
        // A receiver that leaves out the variation's direction and writes its mode there, the
        // last field (a Motorola T805: `…,181207,0,A`): the mode is read, the variation, of no
        // known sign, is not.
        fields.skip(2)
        rmc.mode = mode
        return rmc
      }
      rmc.magneticVariation = try fields.signedDecimal(positive: UInt8(ascii: "E"), negative: UInt8(ascii: "W"))
      rmc.mode = try fields.modeIndicator()
      rmc.navigationStatus = try fields.character()
      return rmc
    }
  }

  /// The mode a sentence gives in field 11, the variation's direction, when that is its last
  /// field and holds a mode letter that is not a direction (`A`, `D`, `N`…; `E` is east).
  static func modeInPlaceOfDirection(_ fields: Fields) -> FixQuality? {
    var fields = fields
    fields.skip()
    let letter = try? fields.character()
    guard !fields.hasMore, let letter, letter != UInt8(ascii: "E"), letter != UInt8(ascii: "W") else {
      return nil
    }
    return FixQuality(modeIndicator: letter)
  }
}
