/// GSA: fix dimension, the satellites used in it, and the dilutions of precision.
///
/// ```
///        1 2 3                         14 15  16  17  18
///        | | |                          |  |   |   |   |
/// $--GSA,a,x,xx,xx,xx,xx,xx,xx,xx,xx,xx,xx,xx,xx,p.p,h.h,v.v,h*hh
/// ```
/// 1 selection (M manual, A automatic) · 2 fix type (1 none, 2 2D, 3 3D) · 3–14 satellites
/// used (empty slots are blank) · 15 PDOP · 16 HDOP · 17 VDOP · 18 system ID, hexadecimal
/// (NMEA 4.10+: 1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC). A combined
/// receiver sends one GSA per constellation, all talker `GN`; the system ID, or without it
/// the satellite numbers, tell them apart.
public struct GSA: Hashable, Sendable {
  public var talker: Talker
  /// `M` or `A`.
  public var selectionMode: UInt8?
  public var fixMode: FixMode?
  /// The satellites used in the solution, as the receiver numbers them.
  public var satellites: SatelliteNumbers
  public var pdop: FixedPoint?
  public var hdop: FixedPoint?
  public var vdop: FixedPoint?
  /// NMEA 4.10 system ID, when the sentence carries one.
  public var systemID: Int?

  /// The constellation these satellites belong to: from the system ID, else the talker;
  /// `nil` for a combined sentence that has neither (use each number's own range).
  public var constellation: Constellation? {
    if let systemID { return Constellation(systemID: systemID) }
    return talker.constellation
  }
}

extension GSA {
  public init(_ sentence: Sentence) throws(NMEAError) { self = try sentence.withView(GSA.init) }

  package init(_ sentence: SentenceView) throws(NMEAError) {
    try sentence.require(.gsa)
    // 17 fields in NMEA 2.x–4.00; 18 with the system ID. Some receivers send more or fewer
    // than twelve satellite slots, so the slots are whatever lies between field 2 and the DOPs.
    let fieldCount = sentence.fieldCount
    let hasSystemID = fieldCount >= 18
    let slots = max(0, fieldCount - 5 - (hasSystemID ? 1 : 0))
    self = try sentence.withFields { (fields: inout Fields) throws(NMEAError) in
      GSA(
        talker: sentence.talker,
        selectionMode: try fields.character(),
        fixMode: try fields.fixMode(),
        satellites: try fields.satelliteNumbers(count: slots),
        pdop: try fields.decimal(in: Plausible.dilution),
        hdop: try fields.decimal(in: Plausible.dilution),
        vdop: try fields.decimal(in: Plausible.dilution),
        systemID: hasSystemID ? try fields.hexadecimal() : nil)
    }
  }
}

extension Fields {
  mutating func fixMode() throws(NMEAError) -> FixMode? {
    switch try integer() {
    case nil: return nil
    case 1: return FixMode.none
    case 2: return .twoD
    case 3: return .threeD
    default: throw invalid
    }
  }

  mutating func satelliteNumbers(count: Int) throws(NMEAError) -> SatelliteNumbers {
    var numbers = SatelliteNumbers()
    for _ in 0..<count {
      guard let number = try integer() else { continue }
      guard number > 0, number < SatelliteNumbers.limit else { throw invalid }
      numbers.insert(number)
    }
    return numbers
  }
}
