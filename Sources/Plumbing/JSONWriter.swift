/// Builds one JSON object as text, appending straight into a byte buffer: fast enough for
/// the command line's throughput and exact about numbers (the shortest text that reads back
/// as the same `Double`). Unknown values are left out by the callers, as gpsd does.
package struct JSONWriter {
  package private(set) var bytes: [UInt8] = []
  private var needsComma: [Bool] = []

  package init() {
    bytes.reserveCapacity(512)
  }

  package var string: String { String(decoding: bytes, as: UTF8.self) }

  package mutating func beginObject() {
    bytes.append(UInt8(ascii: "{"))
    needsComma.append(false)
  }

  package mutating func endObject() {
    bytes.append(UInt8(ascii: "}"))
    needsComma.removeLast()
  }

  package mutating func beginArray(_ key: String) {
    self.key(key)
    bytes.append(UInt8(ascii: "["))
    needsComma.append(false)
  }

  package mutating func endArray() {
    bytes.append(UInt8(ascii: "]"))
    needsComma.removeLast()
  }

  /// Starts an element of an array: an object follows.
  package mutating func element() {
    separate()
  }

  package mutating func key(_ key: String) {
    separate()
    appendString(key)
    bytes.append(UInt8(ascii: ":"))
  }

  package mutating func object(_ key: String, _ body: (inout JSONWriter) -> Void) {
    self.key(key)
    beginObject()
    body(&self)
    endObject()
  }

  package mutating func field(_ key: String, _ value: String) {
    self.key(key)
    appendString(value)
  }

  package mutating func field(_ key: String, _ value: Double) {
    guard value.isFinite else { return }
    self.key(key)
    bytes.append(contentsOf: value.description.utf8)
  }

  /// A value that CoreLocation marks unknown with a negative number: left out when negative.
  package mutating func field(_ key: String, nonNegative value: Double) {
    guard value >= 0 else { return }
    field(key, value)
  }

  package mutating func field(_ key: String, _ value: Int) {
    self.key(key)
    bytes.append(contentsOf: String(value).utf8)
  }

  package mutating func field(_ key: String, _ value: Bool) {
    self.key(key)
    bytes.append(contentsOf: (value ? "true" : "false").utf8)
  }

  private mutating func separate() {
    if let last = needsComma.last {
      if last { bytes.append(UInt8(ascii: ",")) }
      needsComma[needsComma.count - 1] = true
    }
  }

  private mutating func appendString(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    // Most strings (keys, event names, timestamps) need no escaping: copy them whole.
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
      bytes.append(contentsOf: text.utf8)
      bytes.append(UInt8(ascii: "\""))
      return
    }
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
      case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
      case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
      case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
      case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }
}
