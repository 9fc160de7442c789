/// A few bytes of text written into a buffer on the stack, for ``JSONWriter`` to append at
/// once: a field's comma, key and value cost one capacity check and one copy, where an
/// append of each piece (five or more a field) cost about as much as the digits themselves.
///
/// Every write checks the room left: a caller that asked for too little stops the program
/// rather than writing past the buffer.
struct StackText {
  private let buffer: UnsafeMutableBufferPointer<UInt8>
  /// Bytes written so far, from the buffer's start.
  private(set) var count = 0

  init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
    self.buffer = buffer
  }

  /// The most ``appendShortDecimal(_:)`` writes: a sign, 15 digits before the point, the
  /// point and 9 after it.
  static let longestShortDecimal = 26

  @inline(__always)
  mutating func append(_ byte: UInt8) {
    precondition(count < buffer.count, "StackText: more text than the room asked for")
    buffer[count] = byte
    count &+= 1
  }

  mutating func append(_ text: StaticString) {
    let length = text.utf8CodeUnitCount
    precondition(length <= buffer.count &- count, "StackText: more text than the room asked for")
    UnsafeMutableRawPointer(buffer.baseAddress! + count).copyMemory(from: text.utf8Start, byteCount: length)
    count &+= length
  }

  /// `"key":`
  @inline(__always)
  mutating func appendKey(_ key: StaticString) {
    append(UInt8(ascii: "\""))
    append(key)
    append(UInt8(ascii: "\""))
    append(UInt8(ascii: ":"))
  }

  /// `value`'s decimal digits, as many as it has.
  mutating func appendDigits(_ value: UInt) {
    var digits = 1
    var rest = value / 10
    while rest > 0 {
      digits &+= 1
      rest /= 10
    }
    appendDigits(value, count: digits)
  }

  /// The last `count` decimal digits of `value`, with leading zeros as needed.
  mutating func appendDigits(_ value: UInt, count digits: Int) {
    precondition(digits >= 0 && digits <= buffer.count &- count, "StackText: more text than the room asked for")
    var remaining = value
    var index = count &+ digits
    while index > count {
      index &-= 1
      buffer[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remaining % 10)
      remaining /= 10
    }
    count &+= digits
  }

  /// `value` as `value.description` spells it, when that is a plain decimal of at most nine
  /// decimals (what a receiver reports: 47.3769, 410.0, 0.0); `false`, with nothing
  /// written, for anything else (more decimals, exponents, infinities), which
  /// `Double.write(to:)` spells.
  ///
  /// The decimal is found directly: the fewest decimals `d` (up to 9) for which `value`
  /// rounded to `d` decimals reads back exactly (IEEE division rounds correctly, as parsing
  /// does), and is the only such decimal (a unit of the last decimal is wider than two of
  /// `value`'s ulps). That takes a few multiplications where the general algorithm takes
  /// about ten times as long.
  mutating func appendShortDecimal(_ value: Double) -> Bool {
    if value == 0 {
      append(value.sign == .minus ? "-0.0" : "0.0")
      return true
    }
    let magnitude = value.magnitude
    // Outside this range `description` may use an exponent.
    guard magnitude >= 0.001, magnitude < 1e15 else { return false }
    // Below 1000, a value that nine decimals cannot spell (a position in degrees, most often)
    // is told at once, without trying each number of decimals: its billionths are far from a
    // whole number, where the arithmetic's error is below a thousandth.
    if magnitude < 1000 {
      let billionths = magnitude * 1e9
      let fraction = billionths - Self.roundedHalfAway(billionths)
      if fraction > 0.01 || fraction < -0.01 { return false }
    }
    var scale = 1.0
    for decimals in 0...9 {
      let scaled = Self.roundedHalfAway(magnitude * scale)
      if scaled / scale == magnitude, magnitude.ulp * 2 < 1 / scale {
        let units = UInt64(scaled)
        let unit = UInt64(scale)
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDigits(UInt(units / unit))
        append(UInt8(ascii: "."))
        appendDigits(UInt(units % unit), count: max(decimals, 1))
        return true
      }
      scale *= 10
    }
    return false
  }

  /// `value.rounded()` for a value of at least 0, without a call into the C library: below
  /// 2⁵² its fraction is exact, and from there on every `Double` is whole.
  @inline(__always)
  static func roundedHalfAway(_ value: Double) -> Double {
    guard value < 4_503_599_627_370_496 else { return value }
    let whole = Double(Int64(value))
    return value - whole >= 0.5 ? whole + 1 : whole
  }
}
