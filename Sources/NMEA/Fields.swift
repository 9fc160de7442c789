/// A cursor over a sentence's comma-separated data fields, read in place.
///
/// Obtained from ``Sentence/withFields(_:)`` and valid only inside it. Each reader decodes the
/// next field in one pass over its bytes, stopping at the comma that ends it, and moves on;
/// ``next()`` hands out a field as a ``Field`` instead. Reading past the last field yields
/// empty fields, so optional trailing fields (added in later NMEA versions) read as unknown
/// rather than failing. Every reader returns `nil` for an empty field (unknown, never 0) and
/// throws ``NMEAError/invalidField(_:field:)`` for text it cannot read.
public struct Fields {
  let base: UnsafePointer<UInt8>
  /// Index of the comma before the next field, or `end` when none is left.
  var position: Int
  let end: Int
  let type: SentenceType
  /// Where the cursor began (the comma before field 1), so a field's number can be counted
  /// when an error needs it rather than kept up on every read.
  let origin: Int
  /// Reads past the last field, which move the numbering on without moving the cursor.
  var readsPastEnd = 0

  init(base: UnsafePointer<UInt8>, position: Int, end: Int, type: SentenceType) {
    self.base = base
    self.position = position
    self.end = end
    self.type = type
    self.origin = position
  }

  /// 1-based number of the field read next, as on the rulers in each message's doc.
  public var nextIndex: Int { number(at: position) + 1 + readsPastEnd }

  /// The number of the field that holds byte `index` (or of the field a comma ends): the
  /// commas before it. Out of line: it is needed only for an error, and the readers that
  /// throw one stay small.
  @inline(never)
  func number(at index: Int) -> Int {
    var commas = 0
    var cursor = origin
    while cursor < index {
      if base[cursor] == Self.comma { commas += 1 }
      cursor += 1
    }
    return commas
  }

  static let comma = UInt8(ascii: ",")

  /// Whether another field is present (even if empty).
  public var hasMore: Bool { position < end }

  /// The next field, empty once the sentence has run out.
  public mutating func next() -> Field {
    let index = nextIndex
    guard position < end else {
      readsPastEnd += 1
      return Field(base: base, start: end, end: end, index: index, type: type, isPresent: false)
    }
    let start = position + 1
    var stop = start
    while stop < end, base[stop] != Self.comma { stop += 1 }
    position = stop
    return Field(base: base, start: start, end: stop, index: index, type: type, isPresent: true)
  }

  /// Skips `count` fields.
  public mutating func skip(_ count: Int = 1) {
    for _ in 0..<count {
      guard position < end else {
        readsPastEnd += 1
        continue
      }
      position += 1
      while position < end, base[position] != Self.comma { position += 1 }
    }
  }

  // MARK: Fused readers: each decodes one field in a single pass.

  /// Starts reading the next field: the index of its first byte, or `nil` when it is empty or
  /// missing (the cursor then stands after it).
  @inline(__always)
  mutating func beginField() -> Int? {
    let first = position &+ 1
    guard first < end, base[first] != Self.comma else {
      if first <= end { position = first } else { readsPastEnd &+= 1 }
      return nil
    }
    return first
  }

  /// Ends a field whose bytes were read up to `index`: it must be the comma or the end.
  @inline(__always)
  mutating func finishField(at index: Int) throws(NMEAError) {
    guard index == end || base[index] == Self.comma else { throw invalid(at: index) }
    position = index
  }

  /// The error for the field that holds byte `index`.
  func invalid(at index: Int) -> NMEAError { .invalidField(type, field: number(at: index)) }

  /// The error for the field just read.
  var invalid: NMEAError { invalid(at: position - 1) }

  /// A single character such as `A`, `N` or `M`.
  @inline(__always)
  public mutating func character() throws(NMEAError) -> UInt8? {
    guard let first = beginField() else { return nil }
    try finishField(at: first + 1)
    return base[first]
  }

  /// A whole number in decimal, optionally signed, of at most 18 digits.
  @inline(__always)
  public mutating func integer() throws(NMEAError) -> Int? {
    // The common case, an unsigned number, in one loop; an empty field or a sign go on to
    // `signedInteger`.
    let first = position &+ 1
    guard first < end, case let digit = base[first] &- 0x30, digit < 10 else { return try signedInteger() }
    var value = Int(digit)
    var index = first &+ 1
    while index < end {
      let digit = base[index] &- 0x30
      guard digit < 10 else { break }
      value = value &* 10 &+ Int(digit)
      index &+= 1
    }
    guard index &- first <= 18, index == end || base[index] == Self.comma else { throw invalid(at: first) }
    position = index
    return value
  }

  /// ``integer()`` for a field that is empty, missing or does not start with a digit.
  mutating func signedInteger() throws(NMEAError) -> Int? {
    guard var index = beginField() else { return nil }
    let start = index
    let negative = base[index] == UInt8(ascii: "-")
    if negative || base[index] == UInt8(ascii: "+") { index += 1 }
    let digitsStart = index
    var value = 0
    while index < end {
      let digit = base[index] &- 0x30
      guard digit < 10 else { break }
      value = value &* 10 &+ Int(digit)
      index += 1
    }
    guard index > digitsStart, index - digitsStart <= 18 else { throw invalid(at: start) }
    try finishField(at: index)
    return negative ? -value : value
  }

  /// A whole number in hexadecimal (NMEA 4.10 system and signal IDs), of at most 15 digits.
  public mutating func hexadecimal() throws(NMEAError) -> Int? {
    guard var index = beginField() else { return nil }
    let first = index
    var value = 0
    while index < end, let digit = hexDigitValue(base[index]) {
      value = value << 4 | Int(digit)
      index += 1
    }
    guard index - first <= 15 else { throw invalid(at: first) }
    try finishField(at: index)
    return value
  }

  /// A decimal number such as `-12.50`, kept exact.
  ///
  /// At most 18 significant digits are kept: surplus fraction digits are truncated (no
  /// receiver's precision reaches them), while an integer part too large to hold is an error.
  @inline(__always)
  public mutating func decimal() throws(NMEAError) -> FixedPoint? {
    guard var index = beginField() else { return nil }
    let start = index
    let negative = base[index] == UInt8(ascii: "-")
    if negative || base[index] == UInt8(ascii: "+") { index += 1 }
    // The common case, up to 18 digits in all, in two plain loops: the integer part, then
    // the fraction. Longer numbers are read again by `longDecimal`.
    let integerStart = index
    var mantissa: Int64 = 0
    while index < end {
      let digit = base[index] &- 0x30
      guard digit < 10 else { break }
      mantissa = mantissa &* 10 &+ Int64(digit)
      index += 1
    }
    let integerDigits = index - integerStart
    var fractionDigits = 0
    if index < end, base[index] == UInt8(ascii: ".") {
      index += 1
      let fractionStart = index
      while index < end {
        let digit = base[index] &- 0x30
        guard digit < 10 else { break }
        mantissa = mantissa &* 10 &+ Int64(digit)
        index += 1
      }
      fractionDigits = index - fractionStart
    }
    guard integerDigits + fractionDigits > 0, index == end || base[index] == Self.comma else { throw invalid(at: start) }
    guard integerDigits + fractionDigits <= 18 else { return try longDecimal(from: start) }
    position = index
    return FixedPoint(mantissa: negative ? -mantissa : mantissa, scale: Int8(fractionDigits))
  }

  /// ``decimal()`` for a field of more than 18 digits, from its first byte: leading zeros do
  /// not count, surplus fraction digits are dropped, a longer integer part is an error.
  mutating func longDecimal(from start: Int) throws(NMEAError) -> FixedPoint {
    var index = start
    let negative = base[index] == UInt8(ascii: "-")
    if negative || base[index] == UInt8(ascii: "+") { index += 1 }
    var mantissa: Int64 = 0
    var scale: Int8 = 0
    var digits = 0
    var sawPoint = false
    while index < end, base[index] != Self.comma {
      let byte = base[index]
      index += 1
      if byte == UInt8(ascii: ".") {
        sawPoint = true
        continue
      }
      let digit = byte &- 0x30
      if digits == 18 || scale == 18 {
        // Beyond 18 digits: surplus fraction digits are truncated, an integer part is too big.
        guard sawPoint else { throw invalid(at: start) }
        continue
      }
      if digits > 0 || digit != 0 { digits += 1 }
      mantissa = mantissa &* 10 &+ Int64(digit)
      if sawPoint { scale += 1 }
    }
    position = index
    return FixedPoint(mantissa: negative ? -mantissa : mantissa, scale: scale)
  }

  /// `hhmmss` with an optional fraction of a second.
  public mutating func time() throws(NMEAError) -> UTCTime? {
    guard var index = beginField() else { return nil }
    guard end - index >= 6, let hour = twoDigits(at: index), let minute = twoDigits(at: index + 2),
      let second = twoDigits(at: index + 4), hour < 24, minute < 60, second <= 60
    else { throw invalid(at: index) }
    index += 6
    var nanoseconds: Int64 = 0
    if index < end, base[index] == UInt8(ascii: ".") {
      index += 1
      var place: Int64 = 100_000_000
      while index < end {
        let digit = base[index] &- 0x30
        guard digit < 10 else { break }
        nanoseconds += Int64(digit) * place
        place /= 10
        index += 1
      }
    }
    try finishField(at: index)
    return UTCTime(
      nanosecondsSinceMidnight: (Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)) * 1_000_000_000 + nanoseconds)
  }

  /// `ddmmyy` (RMC). Two-digit years 80–99 are 1980–1999, 00–79 are 2000–2079: GPS time
  /// began in 1980, so no receiver reports an earlier year.
  public mutating func date() throws(NMEAError) -> UTCDate? {
    guard let index = beginField() else { return nil }
    guard end - index >= 6, let day = twoDigits(at: index), let month = twoDigits(at: index + 2),
      let year = twoDigits(at: index + 4)
    else { throw invalid(at: index) }
    try finishField(at: index + 6)
    let date = UTCDate(year: year < 80 ? 2000 + year : 1900 + year, month: month, day: day)
    guard date.isValid else { throw invalid }
    return date
  }

  /// A latitude or longitude `dddmm.mmmm` followed by its hemisphere field.
  ///
  /// The last two digits before the point are minutes and the rest degrees, so receivers that
  /// drop leading zeros still read right. Up to twelve decimals of minutes are kept exactly.
  /// Both fields empty is unknown; one without the other is invalid.
  public mutating func coordinate(positive: UInt8, negative: UInt8, maximum: Int) throws(NMEAError) -> Coordinate? {
    guard var index = beginField() else {
      guard try character() == nil else { throw invalid }
      return nil
    }
    let start = index
    var whole = 0
    var wholeDigits = 0
    while index < end {
      let digit = base[index] &- 0x30
      guard digit < 10 else { break }
      guard wholeDigits < 6 else { throw invalid(at: start) }
      whole = whole &* 10 &+ Int(digit)
      wholeDigits &+= 1
      index &+= 1
    }
    guard wholeDigits >= 3 else { throw invalid(at: start) }
    var mantissa = Int64(whole % 100)
    var scale: Int8 = 0
    if index < end, base[index] == UInt8(ascii: ".") {
      index += 1
      while index < end {
        let digit = base[index] &- 0x30
        guard digit < 10 else { break }
        // At most 2 + 12 digits: no overflow.
        if scale < 12 {
          mantissa = mantissa &* 10 &+ Int64(digit)
          scale &+= 1
        }
        index &+= 1
      }
    }
    try finishField(at: index)
    let degrees = whole / 100
    guard whole % 100 < 60, degrees < maximum || (degrees == maximum && mantissa == 0) else {
      throw invalid
    }
    guard let letter = try character(), letter == positive || letter == negative else { throw invalid }
    return Coordinate(wholeDegrees: degrees, minutes: FixedPoint(mantissa: mantissa, scale: scale), isNegative: letter == negative)
  }

  @inline(__always)
  func twoDigits(at index: Int) -> Int? {
    let tens = base[index] &- 0x30
    let ones = base[index + 1] &- 0x30
    guard tens < 10, ones < 10 else { return nil }
    return Int(tens) * 10 + Int(ones)
  }
}

/// One field of a sentence, a byte range in place, as ``Fields/next()`` hands it out: for
/// fields no typed reader covers (a text, a string of mode letters). Typed values are read
/// with ``Fields``' readers.
public struct Field {
  let base: UnsafePointer<UInt8>
  let start: Int
  let end: Int
  /// 1-based field number within the sentence.
  public let index: Int
  let type: SentenceType
  /// False when the sentence ended before this field (an older layout).
  public let isPresent: Bool

  public var isEmpty: Bool { start == end }
  public var count: Int { end - start }

  var invalid: NMEAError { .invalidField(type, field: index) }

  /// The field as text. Allocates; for text fields such as TXT's message.
  public var text: String {
    String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self)
  }
}

/// The value of a hexadecimal digit, upper or lower case.
@inline(__always)
func hexDigitValue(_ byte: UInt8) -> UInt8? {
  switch byte {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
  case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
  case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
  default: nil
  }
}
