/// A cursor over a sentence's comma-separated data fields, read in place.
///
/// Obtained from ``Sentence/withFields(_:)`` and valid only inside it. Each ``next()``
/// returns the following field; reading past the last one yields empty fields, so optional
/// trailing fields (added in later NMEA versions) read as unknown rather than failing.
public struct Fields {
  let base: UnsafePointer<UInt8>
  /// Index of the comma before the next field, or `end` when none is left.
  var position: Int
  let end: Int
  let type: SentenceType
  /// 1-based number of the field ``next()`` returns next, as on the rulers in each message's doc.
  public private(set) var nextIndex = 1

  init(base: UnsafePointer<UInt8>, position: Int, end: Int, type: SentenceType) {
    self.base = base
    self.position = position
    self.end = end
    self.type = type
  }

  /// Whether another field is present (even if empty).

  public var hasMore: Bool { position < end }

  /// The next field, empty once the sentence has run out.

  public mutating func next() -> Field {
    defer { nextIndex += 1 }
    guard position < end else {
      return Field(base: base, start: end, end: end, index: nextIndex, type: type, isPresent: false)
    }
    let start = position + 1
    var stop = start
    while stop < end, base[stop] != UInt8(ascii: ",") { stop += 1 }
    position = stop
    return Field(base: base, start: start, end: stop, index: nextIndex, type: type, isPresent: true)
  }

  /// Skips `count` fields.

  public mutating func skip(_ count: Int = 1) {
    for _ in 0..<count { _ = next() }
  }
}

/// One field of a sentence: a byte range in place, with decoders for each NMEA field type.
///
/// Every decoder returns `nil` for an empty field (unknown, never 0) and throws
/// ``NMEAError/invalidField(_:field:)`` for text it cannot read.
public struct Field {
  let base: UnsafePointer<UInt8>
  let start: Int
  let end: Int
  /// 1-based field number within the sentence.
  public let index: Int
  let type: SentenceType
  /// False when the sentence ended before this field (an older layout).
  public let isPresent: Bool

  init(base: UnsafePointer<UInt8>, start: Int, end: Int, index: Int, type: SentenceType, isPresent: Bool) {
    self.base = base
    self.start = start
    self.end = end
    self.index = index
    self.type = type
    self.isPresent = isPresent
  }

  public var isEmpty: Bool { start == end }
  public var count: Int { end - start }

  var invalid: NMEAError { .invalidField(type, field: index) }

  /// The field as text. Allocates; for text fields such as TXT's message.
  public var text: String {
    String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self)
  }

  /// A single character such as `A`, `N` or `M`.

  public func character() throws(NMEAError) -> UInt8? {
    guard !isEmpty else { return nil }
    guard count == 1 else { throw invalid }
    return base[start]
  }

  /// A whole number in decimal, optionally signed.

  public func integer() throws(NMEAError) -> Int? {
    guard !isEmpty else { return nil }
    var index = start
    let negative = base[index] == UInt8(ascii: "-")
    if negative || base[index] == UInt8(ascii: "+") { index += 1 }
    guard index < end, end - index <= 18 else { throw invalid }
    var value = 0
    while index < end {
      let digit = base[index] &- 0x30
      guard digit < 10 else { throw invalid }
      value = value &* 10 &+ Int(digit)
      index += 1
    }
    return negative ? -value : value
  }

  /// A whole number in hexadecimal (GSA's NMEA 4.11 system ID).

  public func hexadecimal() throws(NMEAError) -> Int? {
    guard !isEmpty else { return nil }
    guard count <= 15 else { throw invalid }
    var value = 0
    for index in start..<end {
      guard let digit = hexDigitValue(base[index]) else { throw invalid }
      value = value << 4 | Int(digit)
    }
    return value
  }

  /// A decimal number such as `-12.50`, kept exact.
  ///
  /// At most 18 significant digits are kept: surplus fraction digits are truncated (no
  /// receiver's precision reaches them), while an integer part too large to hold is an error.

  public func decimal() throws(NMEAError) -> FixedPoint? {
    guard !isEmpty else { return nil }
    var index = start
    let negative = base[index] == UInt8(ascii: "-")
    if negative || base[index] == UInt8(ascii: "+") { index += 1 }
    var mantissa: Int64 = 0
    var scale: Int8 = 0
    var digits = 0
    var sawPoint = false
    var sawDigit = false
    while index < end {
      let byte = base[index]
      index += 1
      if byte == UInt8(ascii: ".") {
        guard !sawPoint else { throw invalid }
        sawPoint = true
        continue
      }
      let digit = byte &- 0x30
      guard digit < 10 else { throw invalid }
      sawDigit = true
      if digits == 18 || scale == 18 {
        // Beyond 18 digits: surplus fraction digits are truncated, an integer part is too big.
        guard sawPoint else { throw invalid }
        continue
      }
      if digits > 0 || digit != 0 { digits += 1 }
      mantissa = mantissa &* 10 &+ Int64(digit)
      if sawPoint { scale += 1 }
    }
    guard sawDigit else { throw invalid }
    return FixedPoint(mantissa: negative ? -mantissa : mantissa, scale: scale)
  }

  /// `hhmmss` with an optional fraction of a second.

  public func time() throws(NMEAError) -> UTCTime? {
    guard !isEmpty else { return nil }
    guard count >= 6 else { throw invalid }
    guard let hour = twoDigits(at: start), let minute = twoDigits(at: start + 2),
      let second = twoDigits(at: start + 4), hour < 24, minute < 60, second <= 60
    else { throw invalid }
    var nanoseconds: Int64 = 0
    if count > 6 {
      guard base[start + 6] == UInt8(ascii: ".") else { throw invalid }
      var place: Int64 = 100_000_000
      for index in (start + 7)..<end {
        let digit = base[index] &- 0x30
        guard digit < 10 else { throw invalid }
        nanoseconds += Int64(digit) * place
        place /= 10
      }
    }
    return UTCTime(
      nanosecondsSinceMidnight: (Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)) * 1_000_000_000
        + nanoseconds)
  }

  /// `ddmmyy` (RMC). Two-digit years 80–99 are 1980–1999, 00–79 are 2000–2079: GPS time
  /// began in 1980, so no receiver reports an earlier year.

  public func date() throws(NMEAError) -> UTCDate? {
    guard !isEmpty else { return nil }
    guard count == 6, let day = twoDigits(at: start), let month = twoDigits(at: start + 2),
      let year = twoDigits(at: start + 4)
    else { throw invalid }
    let date = UTCDate(year: year < 80 ? 2000 + year : 1900 + year, month: month, day: day)
    guard date.isValid else { throw invalid }
    return date
  }

  /// A latitude or longitude `dddmm.mmmm` followed by its hemisphere field.
  ///
  /// The last two digits before the point are minutes and the rest degrees, so receivers that
  /// drop leading zeros still read right. Up to twelve decimals of minutes are kept exactly.
  /// Both fields empty is unknown; one without the other is invalid.

  public func coordinate(hemisphere: Field, positive: UInt8, negative: UInt8, maximum: Int)
    throws(NMEAError) -> Coordinate?
  {
    guard !isEmpty else {
      guard hemisphere.isEmpty else { throw hemisphere.invalid }
      return nil
    }
    guard let letter = try hemisphere.character(), letter == positive || letter == negative else {
      throw hemisphere.invalid
    }
    var index = start
    var whole = 0
    var wholeDigits = 0
    while index < end, base[index] != UInt8(ascii: ".") {
      let digit = base[index] &- 0x30
      guard digit < 10, wholeDigits < 6 else { throw invalid }
      whole = whole * 10 + Int(digit)
      wholeDigits += 1
      index += 1
    }
    guard wholeDigits >= 3 else { throw invalid }
    var mantissa = Int64(whole % 100)
    var scale: Int8 = 0
    if index < end {
      index += 1
      while index < end {
        let digit = base[index] &- 0x30
        guard digit < 10 else { throw invalid }
        if scale < 12 {
          mantissa = mantissa * 10 + Int64(digit)
          scale += 1
        }
        index += 1
      }
    }
    let degrees = whole / 100
    guard whole % 100 < 60, degrees < maximum || (degrees == maximum && mantissa == 0) else {
      throw invalid
    }
    return Coordinate(
      wholeDegrees: degrees, minutes: FixedPoint(mantissa: mantissa, scale: scale),
      isNegative: letter == negative)
  }

  /// Latitude: `ddmm.mmmm,N|S`.

  public func latitude(hemisphere: Field) throws(NMEAError) -> Coordinate? {
    try coordinate(hemisphere: hemisphere, positive: UInt8(ascii: "N"), negative: UInt8(ascii: "S"), maximum: 90)
  }

  /// Longitude: `dddmm.mmmm,E|W`.

  public func longitude(hemisphere: Field) throws(NMEAError) -> Coordinate? {
    try coordinate(hemisphere: hemisphere, positive: UInt8(ascii: "E"), negative: UInt8(ascii: "W"), maximum: 180)
  }

  func twoDigits(at index: Int) -> Int? {
    let tens = base[index] &- 0x30
    let ones = base[index + 1] &- 0x30
    guard tens < 10, ones < 10 else { return nil }
    return Int(tens) * 10 + Int(ones)
  }
}

@inline(__always)
func hexDigitValue(_ byte: UInt8) -> UInt8? {
  switch byte {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
  case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
  case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
  default: nil
  }
}
