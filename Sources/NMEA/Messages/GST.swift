/// GST: the receiver's own estimate of its position error (1σ), from range residuals.
///
/// ```
///        1         2   3   4   5   6   7   8
///        |         |   |   |   |   |   |   |
/// $--GST,hhmmss.ss,x.x,x.x,x.x,x.x,x.x,x.x,x.x*hh
/// ```
/// 1 UTC time · 2 RMS of the pseudorange residuals, m · 3 error ellipse semi-major axis σ, m ·
/// 4 semi-minor axis σ, m · 5 orientation of the semi-major axis, degrees true · 6 latitude
/// error σ, m · 7 longitude error σ, m · 8 altitude error σ, m.
public struct GST: Hashable, Sendable {
  public var talker: Talker
  public var time: UTCTime?
  public var rangeRMS: FixedPoint?
  public var semiMajorSigma: FixedPoint?
  public var semiMinorSigma: FixedPoint?
  public var orientation: FixedPoint?
  public var latitudeSigma: FixedPoint?
  public var longitudeSigma: FixedPoint?
  public var altitudeSigma: FixedPoint?
}

extension GST {
  public init(_ sentence: Sentence) throws(NMEAError) { self = try sentence.withView(GST.init) }

  package init(_ sentence: SentenceView) throws(NMEAError) {
    try sentence.require(.gst)
    self = try sentence.withFields { (fields: inout Fields) throws(NMEAError) in
      GST(
        talker: sentence.talker,
        time: try fields.time(),
        rangeRMS: try fields.decimal(in: Plausible.error),
        semiMajorSigma: try fields.decimal(in: Plausible.error),
        semiMinorSigma: try fields.decimal(in: Plausible.error),
        orientation: try fields.decimal(in: Plausible.direction),
        latitudeSigma: try fields.decimal(in: Plausible.error),
        longitudeSigma: try fields.decimal(in: Plausible.error),
        altitudeSigma: try fields.decimal(in: Plausible.error))
    }
  }
}
