/// HDT: true heading from a heading sensor or a dual-antenna receiver.
///
/// ```
///        1   2
///        |   |
/// $--HDT,x.x,T*hh
/// ```
/// 1 heading, degrees true · 2 `T`.
public struct HDT: Hashable, Sendable {
  public var talker: Talker
  public var heading: FixedPoint?
}

extension HDT {
  public init(_ sentence: Sentence) throws(NMEAError) { self = try sentence.withView(HDT.init) }

  package init(_ sentence: SentenceView) throws(NMEAError) {
    try sentence.require(.hdt)
    self = try sentence.withFields { (fields: inout Fields) throws(NMEAError) in
      HDT(talker: sentence.talker, heading: try fields.decimal(unit: UInt8(ascii: "T"), in: Plausible.direction))
    }
  }
}
