/// A JSON text read into values, by the grammar of RFC 8259 with one leniency, as Foundation's
/// reader has it and older gpsd releases need: a comma before a closing `]` or `}`. What the
/// program reads as JSON (gpsd's reports and requests, a regions file) comes from elsewhere,
/// so a text that is not JSON is an error that says where, never a guess.
///
/// The program reads JSON with this and ``JSONValueDecoder`` rather than Foundation's
/// `JSONDecoder`, whose code and tables alone made the installed program 7 MB larger than
/// everything else it does. Nesting is limited to 64 levels (as ``JSONWriter``'s), so a
/// hostile `[[[[…` is an error, not a stack overflow; numbers keep the text they were
/// written as, so an integer is read exactly and a `Double` by the standard library's
/// correctly rounded parser.
package enum JSONValue: Hashable, Sendable {
  case null
  case bool(Bool)
  /// A number as written (already checked against JSON's number grammar).
  case number(String)
  case string(String)
  case array([JSONValue])
  /// An object's members; of a key written twice, the last is kept.
  case object([String: JSONValue])

  /// Why a text is not JSON, and the byte offset where that was found.
  package struct SyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    package var reason: String
    package var offset: Int
    package var description: String { "not JSON: \(reason) at byte \(offset)" }
  }

  /// The deepest nesting of arrays and objects read.
  package static let depthLimit = 64

  /// Reads `bytes` as one JSON text: a value, with only whitespace around it (and a UTF-8
  /// byte-order mark before it, which some editors write and Foundation's reader skips).
  package init(parsing bytes: some Collection<UInt8>) throws(SyntaxError) {
    let contiguous = Array(bytes)
    self = try contiguous.withUnsafeBufferPointer { buffer throws(SyntaxError) in
      var reader = JSONTextReader(buffer)
      if buffer.starts(with: [0xEF, 0xBB, 0xBF]) { reader.offset = 3 }
      let value = try reader.value(depth: 0)
      reader.skipWhitespace()
      guard reader.offset == buffer.count else { throw reader.error("more after the value") }
      return value
    }
  }
}

/// The reader behind ``JSONValue/init(parsing:)``: a recursive descent over contiguous bytes.
private struct JSONTextReader {
  let bytes: UnsafeBufferPointer<UInt8>
  var offset = 0

  init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  func error(_ reason: String) -> JSONValue.SyntaxError { JSONValue.SyntaxError(reason: reason, offset: offset) }

  var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

  mutating func skipWhitespace() {
    while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { offset += 1 }
  }

  mutating func value(depth: Int) throws(JSONValue.SyntaxError) -> JSONValue {
    skipWhitespace()
    guard let byte = current else { throw error("a value missing") }
    switch byte {
    case UInt8(ascii: "{"): return try object(depth: depth + 1)
    case UInt8(ascii: "["): return try array(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
    default: throw error("an unexpected character")
    }
  }

  mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONValue.SyntaxError) -> JSONValue {
    let count = word.utf8CodeUnitCount
    guard offset + count <= bytes.count else { throw error("a value cut short") }
    for index in 0..<count where bytes[offset + index] != word.utf8Start[index] { throw error("an unexpected word") }
    offset += count
    return value
  }

  mutating func object(depth: Int) throws(JSONValue.SyntaxError) -> JSONValue {
    guard depth <= JSONValue.depthLimit else { throw error("nesting deeper than \(JSONValue.depthLimit)") }
    offset += 1
    var members: [String: JSONValue] = [:]
    skipWhitespace()
    if current == UInt8(ascii: "}") {
      offset += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      if current == UInt8(ascii: "}"), !members.isEmpty {
        offset += 1
        return .object(members)
      }
      guard current == UInt8(ascii: "\"") else { throw error("a key missing") }
      let key = try string()
      skipWhitespace()
      guard current == UInt8(ascii: ":") else { throw error("a colon missing") }
      offset += 1
      members[key] = try value(depth: depth)
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","): offset += 1
      case UInt8(ascii: "}"):
        offset += 1
        return .object(members)
      default: throw error("an object not closed")
      }
    }
  }

  mutating func array(depth: Int) throws(JSONValue.SyntaxError) -> JSONValue {
    guard depth <= JSONValue.depthLimit else { throw error("nesting deeper than \(JSONValue.depthLimit)") }
    offset += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if current == UInt8(ascii: "]") {
      offset += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      if current == UInt8(ascii: "]"), !elements.isEmpty {
        offset += 1
        return .array(elements)
      }
      elements.append(try value(depth: depth))
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","): offset += 1
      case UInt8(ascii: "]"):
        offset += 1
        return .array(elements)
      default: throw error("an array not closed")
      }
    }
  }

  /// A string from its opening quote: escapes resolved, control characters and text that is
  /// not UTF-8 refused.
  mutating func string() throws(JSONValue.SyntaxError) -> String {
    offset += 1
    let start = offset
    // Most strings hold no escape: taken whole.
    while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 { offset += 1 }
    var text: [UInt8] = []
    if current == UInt8(ascii: "\"") {
      let whole = UnsafeBufferPointer(rebasing: bytes[start..<offset])
      offset += 1
      guard let string = String(validating: whole, as: UTF8.self) else { throw error("a string that is not UTF-8") }
      return string
    }
    text.append(contentsOf: bytes[start..<offset])
    while true {
      guard let byte = current else { throw error("a string not closed") }
      offset += 1
      switch byte {
      case UInt8(ascii: "\""):
        guard let string = String(validating: text, as: UTF8.self) else { throw error("a string that is not UTF-8") }
        return string
      case UInt8(ascii: "\\"): try escape(into: &text)
      case 0..<0x20:
        offset -= 1
        throw error("a control character in a string")
      default: text.append(byte)
      }
    }
  }

  /// The escape after a backslash, appended as UTF-8.
  mutating func escape(into text: inout [UInt8]) throws(JSONValue.SyntaxError) {
    guard let byte = current else { throw error("a string not closed") }
    offset += 1
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
    case UInt8(ascii: "b"): text.append(0x08)
    case UInt8(ascii: "f"): text.append(0x0C)
    case UInt8(ascii: "n"): text.append(0x0A)
    case UInt8(ascii: "r"): text.append(0x0D)
    case UInt8(ascii: "t"): text.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try hexQuad()
      if (0xD800..<0xDC00).contains(scalar) {
        // A high surrogate: its low half must follow as an escape of its own.
        guard current == UInt8(ascii: "\\"), offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u") else {
          throw error("half a surrogate pair")
        }
        offset += 2
        let low = try hexQuad()
        guard (0xDC00..<0xE000).contains(low) else { throw error("half a surrogate pair") }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00..<0xE000).contains(scalar) {
        throw error("half a surrogate pair")
      }
      guard let unicode = Unicode.Scalar(scalar) else { throw error("an escape of no character") }
      text.append(contentsOf: String(unicode).utf8)
    default:
      offset -= 1
      throw error("an unknown escape")
    }
  }

  mutating func hexQuad() throws(JSONValue.SyntaxError) -> UInt32 {
    guard offset + 4 <= bytes.count else { throw error("an escape cut short") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[offset]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw error("an escape that is not hexadecimal")
      }
      value = value << 4 | UInt32(digit)
      offset += 1
    }
    return value
  }

  /// A number by JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
  mutating func number() throws(JSONValue.SyntaxError) -> JSONValue {
    let start = offset
    if current == UInt8(ascii: "-") { offset += 1 }
    guard let first = current, isDigit(first) else { throw error("a number without digits") }
    offset += 1
    if first != UInt8(ascii: "0") { skipDigits() }
    if current == UInt8(ascii: ".") {
      offset += 1
      guard let digit = current, isDigit(digit) else { throw error("a number without digits after its point") }
      skipDigits()
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      offset += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
      guard let digit = current, isDigit(digit) else { throw error("a number without digits in its exponent") }
      skipDigits()
    }
    return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self))
  }

  func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

  mutating func skipDigits() {
    while let byte = current, isDigit(byte) { offset += 1 }
  }
}
