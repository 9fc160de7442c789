/// Where a byte-by-byte scan of JSON text stands with respect to strings, so that a scanner
/// looking for structure (`{`, `]`, `,`) passes over what is quoted, escaped quotes included.
package struct JSONStringState: Sendable {
  private var inString = false
  private var escaped = false

  package init() {}

  /// Takes the next byte; `true` when it belongs to a string (its quotes included), where
  /// structural characters mean nothing.
  package mutating func consume(_ byte: UInt8) -> Bool {
    if inString {
      if escaped {
        escaped = false
      } else if byte == UInt8(ascii: "\\") {
        escaped = true
      } else if byte == UInt8(ascii: "\"") {
        inString = false
      }
      return true
    }
    inString = byte == UInt8(ascii: "\"")
    return inString
  }
}
