/// A client's bytes to gpsd requests, as they arrive, however they are split.
///
/// A request is `?NAME;`, `?NAME=` followed by a balanced JSON object (braces inside strings
/// do not count), or `?NAME` ended by a line end; several may share a line, and `;`, LF and
/// CRLF after them are optional. A request is taken as soon as it is complete, with or without
/// a newline after it (OpenCPN sends none). Text that is not a request is answered as gpsd
/// does, as an unrecognized request. A client that sends ``maximumPending`` bytes without
/// completing a request is told so and its bytes are dropped.
///
/// The bytes wait in one buffer read from ``start``; an object's scan resumes where the last
/// one stopped, so a request that arrives a byte at a time costs no more than one that
/// arrives whole.
public struct GPSDRequestReader: Sendable {
  /// The most bytes held for a request not yet complete.
  public static let maximumPending = 8192
  /// The most of a bad request echoed back in the error.
  public static let maximumEcho = 80

  /// What the reader found.
  public enum Output: Hashable, Sendable {
    case request(GPSDRequest)
    /// Something that is not a request gpsbridge knows, as sent (capped).
    case unrecognized(String)
    /// A `?WATCH=` whose object could not be read, with gpsd's words for why.
    case invalid(String)
    /// More than ``maximumPending`` bytes without a complete request.
    case tooLong
  }

  private var pending: [UInt8] = []
  private var start = 0
  /// How far an object's scan got, so the next call resumes there.
  private var scan: (end: Int, depth: Int, strings: JSONStringState)?

  public init() {}

  /// Bytes not yet taken as requests.
  public var bufferedByteCount: Int { pending.count - start }

  public mutating func append(_ bytes: some Sequence<UInt8>) {
    if start > 0, start >= pending.count / 2 {
      pending.removeSubrange(0..<start)
      if let scanned = scan { scan = (scanned.end - start, scanned.depth, scanned.strings) }
      start = 0
    }
    pending.append(contentsOf: bytes)
  }

  /// The next complete request, or `nil` until more bytes arrive.
  public mutating func next() -> Output? {
    while start < pending.count, Self.isSeparator(pending[start]) { start += 1 }
    guard start < pending.count else { return nil }
    guard pending[start] == UInt8(ascii: "?") else { return takeGarbage() }
    var index = start + 1
    while index < pending.count, Self.isNameByte(pending[index]) { index += 1 }
    guard index < pending.count else { return overflowOrWait() }
    let name = String(decoding: pending[(start + 1)..<index], as: UTF8.self)
    switch pending[index] {
    case UInt8(ascii: ";"), 0x0A, 0x0D:
      take(through: index + 1)
      return Self.output(named: name, object: nil)
    case UInt8(ascii: "="):
      guard index + 1 < pending.count else { return overflowOrWait() }
      guard pending[index + 1] == UInt8(ascii: "{") else { return takeGarbage() }
      guard let end = endOfObject(from: index + 1) else { return overflowOrWait() }
      let object = pending[(index + 1)..<end]
      let output = Self.output(named: name, object: object)
      take(through: end)
      if start < pending.count, pending[start] == UInt8(ascii: ";") { start += 1 }
      return output
    default:
      return takeGarbage()
    }
  }

  private static func output(named name: String, object: ArraySlice<UInt8>?) -> Output {
    switch name {
    case "VERSION" where object == nil: return .request(.version)
    case "DEVICES" where object == nil: return .request(.devices)
    case "POLL" where object == nil: return .request(.poll)
    case "DEVICE": return .request(.device(object.map { String(decoding: $0, as: UTF8.self) }))
    case "WATCH":
      guard let object else { return .request(.watch(nil)) }
      do {
        return .request(.watch(try GPSDWatch.Change(json: object)))
      } catch {
        return .invalid(error.description)
      }
    default:
      return .unrecognized("?" + name + (object.map { "=" + String(decoding: $0, as: UTF8.self) } ?? ";"))
    }
  }

  private static func isSeparator(_ byte: UInt8) -> Bool {
    byte == 0x0A || byte == 0x0D || byte == 0x20 || byte == 0x09 || byte == UInt8(ascii: ";")
  }

  private static func isNameByte(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
  }

  /// One past the `}` that closes the object starting at `open`, or `nil` if it is not
  /// complete yet; the scan so far is kept for the next call.
  private mutating func endOfObject(from open: Int) -> Int? {
    var (index, depth, strings) = scan ?? (open, 0, JSONStringState())
    defer { scan = (index, depth, strings) }
    while index < pending.count {
      let byte = pending[index]
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

  private mutating func take(through end: Int) {
    start = end
    scan = nil
  }

  /// Text that is not a request, up to the next line end or `?`: unrecognized.
  private mutating func takeGarbage() -> Output? {
    var end = start + 1
    while end < pending.count, pending[end] != 0x0A, pending[end] != 0x0D, pending[end] != UInt8(ascii: "?") { end += 1 }
    guard end < pending.count else { return overflowOrWait() }
    let text = String(decoding: pending[start..<end].prefix(Self.maximumEcho), as: UTF8.self)
    take(through: end)
    return .unrecognized(text)
  }

  private mutating func overflowOrWait() -> Output? {
    guard bufferedByteCount > Self.maximumPending else { return nil }
    pending.removeAll()
    start = 0
    scan = nil
    return .tooLong
  }
}
