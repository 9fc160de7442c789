/// A time of day in UTC as a receiver reports it (`hhmmss.sss`), exact to the nanosecond.
public struct UTCTime: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Nanoseconds since midnight. A leap second (`235960`) reads as 86,400 s.
  public var nanosecondsSinceMidnight: Int64

  public init(nanosecondsSinceMidnight: Int64) {
    self.nanosecondsSinceMidnight = nanosecondsSinceMidnight
  }

  public init(hour: Int, minute: Int, second: Int, nanosecond: Int = 0) {
    self.nanosecondsSinceMidnight =
      (Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)) * 1_000_000_000 + Int64(nanosecond)
  }

  public var hour: Int { Int(nanosecondsSinceMidnight / 3_600_000_000_000) }
  public var minute: Int { Int(nanosecondsSinceMidnight / 60_000_000_000 % 60) }
  public var second: Int { Int(nanosecondsSinceMidnight / 1_000_000_000 % 60) }
  public var nanosecond: Int { Int(nanosecondsSinceMidnight % 1_000_000_000) }

  public static func < (lhs: UTCTime, rhs: UTCTime) -> Bool {
    lhs.nanosecondsSinceMidnight < rhs.nanosecondsSinceMidnight
  }

  public var description: String {
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let millis = nanosecond / 1_000_000
    let fraction = String(millis + 1000).dropFirst()
    return "\(two(hour)):\(two(minute)):\(two(second)).\(fraction)"
  }
}

/// A calendar date in UTC.
public struct UTCDate: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  public var year: Int
  public var month: Int
  public var day: Int

  public init(year: Int, month: Int, day: Int) {
    self.year = year
    self.month = month
    self.day = day
  }

  /// Makes a date from a day count since 1970-01-01.
  public init(daysSince1970 days: Int64) {
    // Civil-from-days over 400-year eras (the proleptic Gregorian calendar).
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    self.init(year: Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), month: Int(month), day: Int(day))
  }

  /// Days since 1970-01-01 (negative before it).
  public var daysSince1970: Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let m = Int64(month)
    let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The next calendar day.
  public var nextDay: UTCDate { UTCDate(daysSince1970: daysSince1970 + 1) }

  /// The calendar day before.
  package var previousDay: UTCDate { UTCDate(daysSince1970: daysSince1970 - 1) }

  /// The years a date may have: GPS time began in 1980, and ``UTCTimestamp`` counts
  /// nanoseconds in 64 bits, which last until 2262. Dates outside are rejected as invalid
  /// input rather than overflowing later.
  public static let validYears = 1970...2200

  /// Whether this is a real calendar date within ``validYears``. Asked of every RMC's date,
  /// so the month's length is read off directly, not found by a round trip through a day count.
  public var isValid: Bool {
    guard Self.validYears.contains(year), (1...12).contains(month), day >= 1 else { return false }
    switch month {
    case 2:
      let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
      return day <= (leap ? 29 : 28)
    case 4, 6, 9, 11: return day <= 30
    default: return day <= 31
    }
  }

  public static func < (lhs: UTCDate, rhs: UTCDate) -> Bool {
    (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
  }

  /// `YYYY-MM-DD`.
  public var description: String {
    func pad(_ value: Int, _ width: Int) -> String {
      let text = String(value)
      return String(repeating: "0", count: max(0, width - text.count)) + text
    }
    return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
  }

  /// Reads `YYYY-MM-DD`, as in a capture's `# Date:` comment.
  public init?<Bytes: Collection<UInt8>>(iso8601 bytes: Bytes) {
    guard let date = bytes.withContiguousStorageIfAvailable({ UTCDate(iso8601: $0) }) ?? UTCDate(iso8601: Array(bytes)) else {
      return nil
    }
    self = date
  }

  /// Reads `YYYY-MM-DD` from contiguous bytes.
  init?(iso8601 digits: UnsafeBufferPointer<UInt8>) {
    guard digits.count == 10, digits[4] == UInt8(ascii: "-"), digits[7] == UInt8(ascii: "-") else {
      return nil
    }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for index in range {
        let byte = digits[index]
        guard byte >= 0x30, byte <= 0x39 else { return nil }
        value = value * 10 + Int(byte - 0x30)
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
    self.init(year: year, month: month, day: day)
    guard isValid else { return nil }
  }
}

/// An instant in UTC: a date and a time of day, kept as nanoseconds since 1970.
public struct UTCTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
  public var nanosecondsSince1970: Int64

  public init(nanosecondsSince1970: Int64) {
    self.nanosecondsSince1970 = nanosecondsSince1970
  }

  public init(date: UTCDate, time: UTCTime) {
    self.nanosecondsSince1970 = date.daysSince1970 * 86_400_000_000_000 + time.nanosecondsSinceMidnight
  }

  /// Seconds since 1970-01-01T00:00:00Z.
  public var secondsSince1970: Double { Double(nanosecondsSince1970) / 1e9 }

  public var date: UTCDate {
    UTCDate(daysSince1970: nanosecondsSince1970.floorDivided(by: 86_400_000_000_000))
  }

  public var time: UTCTime {
    let day: Int64 = 86_400_000_000_000
    return UTCTime(nanosecondsSinceMidnight: ((nanosecondsSince1970 % day) + day) % day)
  }

  public static func < (lhs: UTCTimestamp, rhs: UTCTimestamp) -> Bool {
    lhs.nanosecondsSince1970 < rhs.nanosecondsSince1970
  }

  /// ISO 8601 with milliseconds, for example `2024-05-01T12:00:00.250Z`.
  ///
  /// Written digit by digit into one string: every report a served client gets carries one.
  /// (Nanoseconds in 64 bits reach from 1677 to 2262: the year has four digits.)
  public var description: String {
    let date = date, time = time
    return String(unsafeUninitializedCapacity: 24) { text in
      var end = 0
      func put(_ value: Int, digits: Int, then separator: UInt8) {
        var rest = value
        for place in stride(from: end + digits - 1, through: end, by: -1) {
          text[place] = UInt8(ascii: "0") + UInt8(rest % 10)
          rest /= 10
        }
        text[end + digits] = separator
        end += digits + 1
      }
      put(date.year, digits: 4, then: UInt8(ascii: "-"))
      put(date.month, digits: 2, then: UInt8(ascii: "-"))
      put(date.day, digits: 2, then: UInt8(ascii: "T"))
      put(time.hour, digits: 2, then: UInt8(ascii: ":"))
      put(time.minute, digits: 2, then: UInt8(ascii: ":"))
      put(time.second, digits: 2, then: UInt8(ascii: "."))
      put(time.nanosecond / 1_000_000, digits: 3, then: UInt8(ascii: "Z"))
      return end
    }
  }
}

extension Int64 {
  func floorDivided(by divisor: Int64) -> Int64 {
    let quotient = self / divisor
    return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
  }
}
