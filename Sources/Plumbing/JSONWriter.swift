/// Builds JSON text straight into one byte buffer: fast enough for the command line's
/// throughput and exact about numbers (a `Double` is written as the shortest text that
/// reads back as the same value). Unknown values are left out by the callers, as gpsd does.
///
/// One writer can serve a whole stream of objects: append them, take ``bytes``, and
/// ``removeAll()`` keeps the buffer's capacity, so writing allocates nothing once the buffer
/// has grown. Keys known when the program is written are `StaticString`s, copied without
/// an escape check. Nesting is limited to 64 levels.
package struct JSONWriter: TextOutputStream {
  package private(set) var bytes: [UInt8] = []
  /// One bit per open object or array, innermost lowest: set once it holds a value, so
  /// the next one needs a comma first.
  private var hasValues: UInt64 = 0

  package init(capacity: Int = 512) {
    bytes.reserveCapacity(capacity)
  }

  package var string: String { String(decoding: bytes, as: UTF8.self) }

  /// Empties the buffer, keeping its storage.
  package mutating func removeAll() {
    bytes.removeAll(keepingCapacity: true)
    hasValues = 0
  }

  /// Ends a line of NDJSON.
  package mutating func newline() {
    bytes.append(0x0A)
  }

  package mutating func beginObject() {
    bytes.append(UInt8(ascii: "{"))
    hasValues <<= 1
  }

  package mutating func endObject() {
    bytes.append(UInt8(ascii: "}"))
    hasValues >>= 1
  }

  package mutating func beginArray(_ key: StaticString) {
    self.key(key)
    bytes.append(UInt8(ascii: "["))
    hasValues <<= 1
  }

  package mutating func endArray() {
    bytes.append(UInt8(ascii: "]"))
    hasValues >>= 1
  }

  /// A string value, escaped, where a value goes (after a key or ``element()``).
  package mutating func string(_ value: String) {
    appendString(value)
  }

  /// Starts an element of an array: an object follows.
  package mutating func element() {
    separate()
  }

  /// A string element of an array.
  package mutating func element(_ value: String) {
    separate()
    appendString(value)
  }

  package mutating func key(_ key: StaticString) {
    appendField(key, valueCapacity: 0) { _ in }
  }

  /// A key made at run time, escaped as a string value is.
  package mutating func key(_ key: String) {
    separate()
    appendString(key)
    bytes.append(UInt8(ascii: ":"))
  }

  package mutating func object(_ key: StaticString, _ body: (inout JSONWriter) -> Void) {
    self.key(key)
    beginObject()
    body(&self)
    endObject()
  }

  package mutating func field(_ key: StaticString, _ value: String) {
    self.key(key)
    appendString(value)
  }

  package mutating func field(_ key: StaticString, _ value: Double) {
    guard value.isFinite else { return }
    // The key and a short value in one append; a value `description` must spell goes after.
    let written = appendField(key, valueCapacity: StackText.longestShortDecimal) { $0.appendShortDecimal(value) }
    if !written { value.write(to: &self) }
  }

  /// Appends `value` as `value.description` spells it: the shortest decimal that reads back
  /// as the same `Double`.
  ///
  /// What a receiver reports has few decimals (47.3769, 410.0, 0.0), and for those the
  /// decimal is found directly: the fewest decimals `d` (up to 9) for which `value` rounded to
  /// `d` decimals reads back exactly (IEEE division rounds correctly, as parsing does), and
  /// is the only such decimal (a unit of the last decimal is wider than two of `value`'s
  /// ulps). That takes a few multiplications where the general algorithm takes about ten
  /// times as long; anything else (more decimals, exponents) goes to `Double.write(to:)`,
  /// which hands its digits to ``_writeASCII(_:)`` without making a `String`.
  package mutating func appendShortest(_ value: Double) {
    let written = appendText(capacity: StackText.longestShortDecimal) { $0.appendShortDecimal(value) }
    if !written { value.write(to: &self) }
  }

  /// `value` with exactly `decimals` decimals, like C's `%.*f` (for protocols that fix their
  /// precision, such as gpsd's) but with ties away from zero and never a negative zero; left
  /// out when not finite.
  package mutating func field(_ key: StaticString, _ value: Double, decimals: Int) {
    guard value.isFinite else { return }
    self.key(key)
    appendFixed(value, decimals: decimals)
  }

  /// Appends `value` rounded to `decimals` decimals (0 through 9), half away from zero.
  package mutating func appendFixed(_ value: Double, decimals: Int) {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e18 else {
      // Beyond what the digits below can hold: no gpsd field gets there.
      value.write(to: &self)
      return
    }
    let units = UInt64(scaled)
    let whole = units / UInt64(scale)
    if value < 0, units != 0 { bytes.append(UInt8(ascii: "-")) }
    appendDigits(UInt(whole))
    if decimals > 0 {
      bytes.append(UInt8(ascii: "."))
      appendDigits(UInt(units % UInt64(scale)), count: decimals)
    }
  }

  /// A value that CoreLocation marks unknown with a negative number: left out when negative.
  package mutating func field(_ key: StaticString, nonNegative value: Double) {
    guard value >= 0 else { return }
    field(key, value)
  }

  package mutating func field(_ key: StaticString, _ value: Int) {
    // The key and the number in one append: a sign and at most 19 digits.
    appendField(key, valueCapacity: 20) { text in
      if value < 0 { text.append(UInt8(ascii: "-")) }
      text.appendDigits(value.magnitude)
    }
  }

  /// A time in UTC as ISO 8601 with milliseconds, `"2024-05-01T08:00:00.000Z"`, from its
  /// parts (a year of four digits): written straight into the buffer, in one append with its
  /// key.
  package mutating func field(_ key: StaticString, year: Int, month: Int, day: Int, millisecondOfDay: Int) {
    let time = UInt(clamping: millisecondOfDay)
    appendField(key, valueCapacity: 26) { text in
      text.append(UInt8(ascii: "\""))
      text.appendDigits(UInt(clamping: year), count: 4)
      text.append(UInt8(ascii: "-"))
      text.appendDigits(UInt(clamping: month), count: 2)
      text.append(UInt8(ascii: "-"))
      text.appendDigits(UInt(clamping: day), count: 2)
      text.append(UInt8(ascii: "T"))
      text.appendDigits(time / 3_600_000, count: 2)
      text.append(UInt8(ascii: ":"))
      text.appendDigits(time / 60_000 % 60, count: 2)
      text.append(UInt8(ascii: ":"))
      text.appendDigits(time / 1000 % 60, count: 2)
      text.append(UInt8(ascii: "."))
      text.appendDigits(time % 1000, count: 3)
      text.append(UInt8(ascii: "Z"))
      text.append(UInt8(ascii: "\""))
    }
  }

  package mutating func field(_ key: StaticString, _ value: Bool) {
    self.key(key)
    let text: StaticString = value ? "true" : "false"
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  /// Appends one byte of text that needs no escaping (for values written piece by piece).
  package mutating func append(ascii byte: UInt8) {
    bytes.append(byte)
  }

  /// Appends `value` in decimal.
  package mutating func appendInteger(_ value: Int) {
    appendText(capacity: 20) { text in
      if value < 0 { text.append(UInt8(ascii: "-")) }
      text.appendDigits(value.magnitude)
    }
  }

  /// Appends `value`'s decimal digits, as many as it has.
  package mutating func appendDigits(_ value: UInt) {
    appendText(capacity: 20) { $0.appendDigits(value) }
  }

  /// Appends the last `count` decimal digits of `value`, with leading zeros as needed.
  package mutating func appendDigits(_ value: UInt, count: Int) {
    // A `UInt` has at most 20 digits: any more in front are zeros.
    if count > 20 {
      bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count - 20))
      return appendDigits(value, count: 20)
    }
    // Written on the stack, then appended at once: one capacity check, not one per digit.
    appendText(capacity: 20) { $0.appendDigits(value, count: count) }
  }

  /// A key known when the program is written (after a comma when one is due) and what `body`
  /// writes of its value (at most `valueCapacity` bytes), in one append; returns what `body`
  /// does.
  @inline(__always)
  private mutating func appendField<Result>(
    _ key: StaticString, valueCapacity: Int, _ body: (inout StackText) -> Result
  ) -> Result {
    let comma = hasValues & 1 != 0
    hasValues |= 1
    return appendText(capacity: key.utf8CodeUnitCount + 4 + valueCapacity) { text in
      if comma { text.append(UInt8(ascii: ",")) }
      text.appendKey(key)
      return body(&text)
    }
  }

  /// Appends what `body` writes on the stack (at most `capacity` bytes) in one append, and
  /// returns what `body` does.
  @inline(__always)
  private mutating func appendText<Result>(capacity: Int, _ body: (inout StackText) -> Result) -> Result {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
      var text = StackText(buffer)
      let result = body(&text)
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<text.count]))
      return result
    }
  }

  package mutating func write(_ string: String) {
    bytes.append(contentsOf: string.utf8)
  }

  package mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
    bytes.append(contentsOf: buffer)
  }

  private mutating func separate() {
    if hasValues & 1 != 0 { bytes.append(UInt8(ascii: ",")) }
    hasValues |= 1
  }

  private mutating func appendString(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    var text = text
    // Most strings (identifiers, messages) need no escaping: copy them whole.
    text.withUTF8 { utf8 in
      if utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
        bytes.append(contentsOf: utf8)
      } else {
        for byte in utf8 { appendEscaped(byte) }
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private mutating func appendEscaped(_ byte: UInt8) {
    // Escapes are rare (a message with a quote or a control character): no need for speed.
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes += [0x5C, byte]
    case 0x08: bytes += Array(#"\b"#.utf8)
    case 0x0C: bytes += Array(#"\f"#.utf8)
    case 0x0A: bytes += Array(#"\n"#.utf8)
    case 0x0D: bytes += Array(#"\r"#.utf8)
    case 0x09: bytes += Array(#"\t"#.utf8)
    case 0..<0x20: bytes += Array("\\u00\(byte < 16 ? "0" : "")\(String(byte, radix: 16))".utf8)
    default: bytes.append(byte)
    }
  }
}
