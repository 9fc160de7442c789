import Plumbing

/// JSON for `Codable` values without Foundation: the library's models (``Location``,
/// ``Region``, ``Heading``, ``Fix``) and a program's own, read and written as `gpsbridge`
/// reads a regions file and writes `--json`. Foundation's `JSONEncoder` and `JSONDecoder` do
/// the same, but linking them adds about 7 MB to a static program; this adds a few kilobytes.
///
/// Writing gives one line, keys sorted (the same value always reads the same), `nil`
/// optionals left out, a whole `Double` without a fraction (`3`, not `3.0`) and any other as
/// the shortest text that reads back as the same value: byte for byte what `JSONEncoder` with
/// `.sortedKeys` and `.withoutEscapingSlashes` writes. Reading takes RFC 8259 JSON (and a comma
/// before a closing bracket, as `JSONDecoder` does), nested at most 64 deep.
public enum JSONCoding {
  /// Why a text is not JSON: what was wrong, and at which byte.
  public struct SyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public var offset: Int
    public var description: String { "not JSON: \(reason) at byte \(offset)" }
  }

  /// `value` as one line of JSON (without a line end).
  /// - Throws: `EncodingError.invalidValue` for a `Double` JSON cannot hold (infinity, NaN).
  public static func encode(_ value: some Encodable) throws -> String {
    String(decoding: try JSONValueEncoder.encode(value), as: UTF8.self)
  }

  /// The value of type `type` that the JSON text `bytes` holds.
  /// - Throws: ``SyntaxError`` when the text is not JSON; `DecodingError` when it does not
  ///   hold a `T` (its coding path says where).
  public static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
    let value: JSONValue
    do {
      value = try JSONValue(parsing: bytes)
    } catch {
      throw SyntaxError(reason: error.reason, offset: error.offset)
    }
    return try JSONValueDecoder.decode(type, from: value)
  }
}
