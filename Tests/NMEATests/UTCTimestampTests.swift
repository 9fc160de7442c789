import NMEA
import Testing

/// A timestamp's text, as every served report and every JSON line carries it.
@Suite struct UTCTimestampTests {
  @Test(
    arguments: [
      (UTCDate(year: 2024, month: 5, day: 1), UTCTime(hour: 12, minute: 0, second: 0, nanosecond: 250_000_000), "2024-05-01T12:00:00.250Z"),
      (
        UTCDate(year: 1999, month: 12, day: 31), UTCTime(hour: 23, minute: 59, second: 59, nanosecond: 999_999_999),
        "1999-12-31T23:59:59.999Z"
      ),
      (UTCDate(year: 2016, month: 12, day: 31), UTCTime(hour: 23, minute: 59, second: 60), "2017-01-01T00:00:00.000Z"),
      (UTCDate(year: 2000, month: 2, day: 29), UTCTime(hour: 7, minute: 5, second: 3, nanosecond: 1_000_000), "2000-02-29T07:05:03.001Z"),
      (UTCDate(year: 1700, month: 1, day: 9), UTCTime(hour: 0, minute: 0, second: 0), "1700-01-09T00:00:00.000Z"),
    ])
  func isISO8601WithMilliseconds(_ date: UTCDate, _ time: UTCTime, _ text: String) {
    #expect(UTCTimestamp(date: date, time: time).description == text)
  }

  /// Any instant 64 bits of nanoseconds hold, 1677 to 2262.
  @Test func everyInstantReadsAsItsDateAndTimeOfDay() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2000 {
      let timestamp = UTCTimestamp(nanosecondsSince1970: Int64.random(in: .min ... .max, using: &generator))
      #expect(timestamp.description == "\(timestamp.date)T\(timestamp.time)Z")
    }
  }

  /// A date is real exactly when counting its days from 1970 and back gives it again: the
  /// month lengths read off directly agree with the calendar for every year it accepts, and
  /// the 29th of February, the 31st of a short month and day 0 or 32 are told apart.
  @Test func aDateIsValidExactlyWhenItIsARealDay() {
    for year in UTCDate.validYears.lowerBound - 1...UTCDate.validYears.upperBound + 1 {
      for month in 0...13 {
        for day in 0...32 {
          let date = UTCDate(year: year, month: month, day: day)
          let real =
            UTCDate.validYears.contains(year) && (1...12).contains(month) && (1...31).contains(day)
            && UTCDate(daysSince1970: date.daysSince1970) == date
          if date.isValid != real {
            Issue.record("\(date): isValid \(date.isValid), a real day \(real)")
            return
          }
        }
      }
    }
  }
}
