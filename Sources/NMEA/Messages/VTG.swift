/// VTG: course and speed over ground.
///
/// ```
///        1   2 3   4 5   6 7   8 9
///        |   | |   | |   | |   | |
/// $--VTG,x.x,T,x.x,M,x.x,N,x.x,K,m*hh
/// ```
/// 1–2 course, degrees true · 3–4 course, degrees magnetic · 5–6 speed, knots · 7–8 speed,
/// km/h · 9 mode indicator (NMEA 2.3+). Receivers older than NMEA 2.0 send just the four
/// numbers without unit letters (`$GPVTG,054.7,034.4,005.5,010.2`); both layouts are read.
public struct VTG: Hashable, Sendable {
  public var talker: Talker
  public var course: FixedPoint?
  public var magneticCourse: FixedPoint?
  public var speedKnots: FixedPoint?
  public var speedKilometresPerHour: FixedPoint?
  public var mode: FixQuality?
}

extension VTG {
  public init(_ sentence: Sentence) throws(NMEAError) { self = try sentence.withView(VTG.init) }

  package init(_ sentence: SentenceView) throws(NMEAError) {
    try sentence.require(.vtg)
    let isLegacy = sentence.fieldCount == 4
    self = try sentence.withFields { (fields: inout Fields) throws(NMEAError) in
      if isLegacy {
        return VTG(
          talker: sentence.talker, course: try fields.decimal(in: Plausible.direction),
          magneticCourse: try fields.decimal(in: Plausible.direction), speedKnots: try fields.decimal(in: Plausible.speedKnots),
          speedKilometresPerHour: try fields.decimal(in: Plausible.speedKilometresPerHour), mode: nil)
      }
      return VTG(
        talker: sentence.talker,
        course: try fields.decimal(unit: UInt8(ascii: "T"), in: Plausible.direction),
        magneticCourse: try fields.decimal(unit: UInt8(ascii: "M"), in: Plausible.direction),
        speedKnots: try fields.decimal(unit: UInt8(ascii: "N"), in: Plausible.speedKnots),
        speedKilometresPerHour: try fields.decimal(unit: UInt8(ascii: "K"), in: Plausible.speedKilometresPerHour),
        mode: try fields.modeIndicator())
    }
  }
}
