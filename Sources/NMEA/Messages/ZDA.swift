/// ZDA: UTC time and full date, and the local time zone.
///
/// ```
///        1         2  3  4    5  6
///        |         |  |  |    |  |
/// $--ZDA,hhmmss.ss,xx,xx,xxxx,xx,xx*hh
/// ```
/// 1 UTC time · 2 day · 3 month · 4 four-digit year · 5 local zone hours (−13…13) ·
/// 6 local zone minutes.
public struct ZDA: Hashable, Sendable {
  public var talker: Talker
  public var time: UTCTime?
  public var date: UTCDate?
  public var localZoneHours: Int?
  public var localZoneMinutes: Int?
}

extension ZDA {
  public init(_ sentence: Sentence) throws(NMEAError) { self = try sentence.withView(ZDA.init) }

  package init(_ sentence: SentenceView) throws(NMEAError) {
    try sentence.require(.zda)
    self = try sentence.withFields { (fields: inout Fields) throws(NMEAError) in
      let time = try fields.time()
      let day = try fields.integer()
      let month = try fields.integer()
      let year = try fields.integer()
      var date: UTCDate?
      if let day, let month, let year {
        let candidate = UTCDate(year: year, month: month, day: day)
        guard candidate.isValid, year >= 1980 else { throw .invalidField(.zda, field: 2) }
        date = candidate
      } else if day != nil || month != nil || year != nil {
        throw .invalidField(.zda, field: 2)
      }
      return ZDA(
        talker: sentence.talker, time: time, date: date,
        localZoneHours: try fields.integer(), localZoneMinutes: try fields.integer())
    }
  }
}
