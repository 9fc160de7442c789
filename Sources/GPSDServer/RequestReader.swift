import GPSD

/// A client's bytes to gpsd requests, as they arrive, however they are split.
///
/// A request is `?NAME;`, `?NAME=` followed by a balanced JSON object (braces inside strings
/// do not count), or `?NAME` ended by a line end; several may share a line, and `;`, LF and
/// CRLF after them are optional. A request is taken as soon as it is complete, with or without
/// a newline after it (OpenCPN sends none). Text that is not a request is answered as gpsd
/// does, as an unrecognized request. A client that sends ``maximumPending`` bytes without
/// completing a request is told so and its bytes are dropped.
struct RequestReader: Sendable {
  /// The most bytes held for a request not yet complete.
  static let maximumPending = 8192
  /// The most of a bad request echoed back in the error.
  static let maximumEcho = 80

  enum Request: Equatable, Sendable {
    case version
    case devices
    /// `?WATCH;` (`nil`: report the policy) or `?WATCH={…}` (the object's text).
    case watch([UInt8]?)
    case poll
    /// `?DEVICE;` or `?DEVICE={…}`.
    case device([UInt8]?)
    /// Something that is not a request gpsbridge knows, as sent (capped).
    case unrecognized(String)
    /// More than ``maximumPending`` bytes without a complete request.
    case tooLong
  }

  private var pending: [UInt8] = []

  mutating func append(_ bytes: some Sequence<UInt8>) {
    pending.append(contentsOf: bytes)
  }

  /// The next complete request, or `nil` until more bytes arrive.
  mutating func next() -> Request? {
    while let first = pending.first, first == 0x0A || first == 0x0D || first == 0x20 || first == 0x09 || first == UInt8(ascii: ";") {
      pending.removeFirst()
    }
    guard let first = pending.first else { return nil }
    guard first == UInt8(ascii: "?") else { return takeGarbage() }
    var index = 1
    while index < pending.count, Self.isNameByte(pending[index]) { index += 1 }
    guard index < pending.count else { return overflowOrWait() }
    let name = String(decoding: pending[1..<index], as: UTF8.self)
    switch pending[index] {
    case UInt8(ascii: ";"), 0x0A, 0x0D:
      pending.removeFirst(index + 1)
      return Self.request(named: name, object: nil)
    case UInt8(ascii: "="):
      guard let end = Self.endOfObject(in: pending, from: index + 1) else {
        if index + 1 < pending.count, pending[index + 1] != UInt8(ascii: "{") { return takeGarbage() }
        return overflowOrWait()
      }
      let object = Array(pending[(index + 1)..<end])
      pending.removeFirst(end)
      if pending.first == UInt8(ascii: ";") { pending.removeFirst() }
      return Self.request(named: name, object: object)
    default:
      return takeGarbage()
    }
  }

  private static func request(named name: String, object: [UInt8]?) -> Request {
    switch name {
    case "VERSION" where object == nil: .version
    case "DEVICES" where object == nil: .devices
    case "WATCH": .watch(object)
    case "POLL" where object == nil: .poll
    case "DEVICE": .device(object)
    default: .unrecognized("?" + name + (object.map { "=" + String(decoding: $0, as: UTF8.self) } ?? ";"))
    }
  }

  private static func isNameByte(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
  }

  /// One past the `}` that closes the object starting at `start`, or `nil` if it is not
  /// complete yet (or does not start with `{`).
  private static func endOfObject(in bytes: [UInt8], from start: Int) -> Int? {
    guard start < bytes.count, bytes[start] == UInt8(ascii: "{") else { return nil }
    var depth = 0
    var strings = JSONStringState()
    var index = start
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      if strings.consume(byte) { continue }
      switch byte {
      case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        depth -= 1
        if depth == 0 { return index }
      default: break
      }
    }
    return nil
  }

  /// Text that is not a request, up to the next line end or `?`: unrecognized.
  private mutating func takeGarbage() -> Request? {
    var end = 1
    while end < pending.count, pending[end] != 0x0A, pending[end] != 0x0D, pending[end] != UInt8(ascii: "?") { end += 1 }
    guard end < pending.count else { return overflowOrWait() }
    let text = String(decoding: pending[0..<end].prefix(Self.maximumEcho), as: UTF8.self)
    pending.removeFirst(end)
    return .unrecognized(text)
  }

  private mutating func overflowOrWait() -> Request? {
    guard pending.count > Self.maximumPending else { return nil }
    pending.removeAll()
    return .tooLong
  }
}
