/// Decodes `Decodable` types from JSON through the standard library's `Decoder` protocol, as
/// Foundation's `JSONDecoder` does for the program's types: a missing key is `keyNotFound`, a
/// value of the wrong kind `typeMismatch`, `null` or a missing key is `nil` for an optional; an
/// integer must be one exactly (`2.0` reads as 2, `2.5` does not), and a `Double` is read
/// from its text, correctly rounded. See ``JSONValue`` for why the program has its own.
package enum JSONValueDecoder {
  /// The value of type `type` that `bytes` (one JSON text) hold.
  package static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
    try decode(type, from: JSONValue(parsing: bytes))
  }

  /// The value of type `type` that `value` holds.
  package static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
    try T(from: ValueDecoder(value, codingPath: []))
  }
}

/// One value being decoded, and where it is in the document.
private struct ValueDecoder: Decoder {
  let value: JSONValue
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(_ value: JSONValue, codingPath: [any CodingKey]) {
    self.value = value
    self.codingPath = codingPath
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let members) = value else { throw mismatch([String: Any].self, value, codingPath) }
    return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let elements) = value else { throw mismatch([Any].self, value, codingPath) }
    return UnkeyedContainer(elements: elements, codingPath: codingPath)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(value: value, codingPath: codingPath) }
}

/// What a value of the wrong kind says: the type wanted (an object as `[String: Any]`, an array
/// as `[Any]`, as Foundation's says them) and what was there.
private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
  let found =
    switch value {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  return DecodingError.typeMismatch(type, DecodingError.Context(codingPath: path, debugDescription: "expected \(type), found \(found)"))
}

/// The conversions from a JSON value to each of the standard library's primitive types.
private enum Primitive {
  static func bool(_ value: JSONValue, _ path: [any CodingKey]) throws -> Bool {
    guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, path) }
    return bool
  }

  static func string(_ value: JSONValue, _ path: [any CodingKey]) throws -> String {
    guard case .string(let string) = value else { throw mismatch(String.self, value, path) }
    return string
  }

  /// A `Float`: a number out of its range is an error, not infinity.
  static func float(_ value: JSONValue, _ path: [any CodingKey]) throws -> Float {
    let float = Float(try double(value, path))
    guard float.isFinite else {
      throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: "\(value) does not fit in a Float"))
    }
    return float
  }

  static func double(_ value: JSONValue, _ path: [any CodingKey]) throws -> Double {
    guard case .number(let text) = value, let double = Double(text), double.isFinite else {
      throw mismatch(Double.self, value, path)
    }
    return double
  }

  /// An integer exactly: its text as one, or an integral number within the type's range.
  static func integer<T: FixedWidthInteger>(_ value: JSONValue, _ path: [any CodingKey]) throws -> T {
    guard case .number(let text) = value else { throw mismatch(T.self, value, path) }
    if let integer = T(text) { return integer }
    guard let double = Double(text), double.rounded() == double, let integer = T(exactly: double) else {
      throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: "\(text) is no \(T.self)"))
    }
    return integer
  }

  /// `value` as `type`: a primitive directly, anything else through its `init(from:)`.
  static func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> T {
    switch type {
    case is Double.Type: return try double(value, path) as! T
    case is String.Type: return try string(value, path) as! T
    case is Int.Type: return try integer(value, path) as Int as! T
    case is Bool.Type: return try bool(value, path) as! T
    default: return try T(from: ValueDecoder(value, codingPath: path))
    }
  }
}

/// The key of a superclass's part.
private struct SuperKey: CodingKey {
  var stringValue: String { "super" }
  var intValue: Int? { nil }
  init() {}
  init?(stringValue: String) { nil }
  init?(intValue: Int) { nil }
}

/// A key of an array's element, for the coding path.
private struct IndexKey: CodingKey {
  var intValue: Int?
  var stringValue: String { "Index \(intValue ?? 0)" }
  init(_ index: Int) { intValue = index }
  init?(stringValue: String) { nil }
  init?(intValue: Int) { self.intValue = intValue }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let members: [String: JSONValue]
  let codingPath: [any CodingKey]

  var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

  func member(_ key: Key) throws -> JSONValue {
    guard let value = members[key.stringValue] else {
      throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "no \"\(key.stringValue)\""))
    }
    return value
  }

  func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

  func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }
  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Primitive.bool(member(key), path(key)) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try Primitive.string(member(key), path(key)) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try Primitive.double(member(key), path(key)) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try Primitive.float(member(key), path(key)) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try Primitive.integer(member(key), path(key)) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try Primitive.integer(member(key), path(key)) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try Primitive.integer(member(key), path(key)) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try Primitive.integer(member(key), path(key)) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try Primitive.integer(member(key), path(key)) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try Primitive.integer(member(key), path(key)) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try Primitive.integer(member(key), path(key)) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try Primitive.integer(member(key), path(key)) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try Primitive.integer(member(key), path(key)) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try Primitive.integer(member(key), path(key)) }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try Primitive.decode(type, member(key), path(key)) }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
    try ValueDecoder(member(key), codingPath: path(key)).container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try ValueDecoder(member(key), codingPath: path(key)).unkeyedContainer()
  }

  /// The superclass's part, under `super` as ``JSONValueEncoder`` (and Foundation) writes it.
  func superDecoder() throws -> any Decoder {
    ValueDecoder(members["super"] ?? .null, codingPath: codingPath + [SuperKey()])
  }
  func superDecoder(forKey key: Key) throws -> any Decoder { ValueDecoder(members[key.stringValue] ?? .null, codingPath: path(key)) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
  let elements: [JSONValue]
  let codingPath: [any CodingKey]
  var currentIndex = 0

  init(elements: [JSONValue], codingPath: [any CodingKey]) {
    self.elements = elements
    self.codingPath = codingPath
  }

  var count: Int? { elements.count }
  var isAtEnd: Bool { currentIndex >= elements.count }

  /// The next element and its path; ``take(_:_:)`` moves past it.
  func next(_ type: Any.Type) throws -> (JSONValue, [any CodingKey]) {
    let path = codingPath + [IndexKey(currentIndex)]
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(type, DecodingError.Context(codingPath: path, debugDescription: "the array has ended"))
    }
    return (elements[currentIndex], path)
  }

  /// The next element converted by `convert`, moving past it only when that succeeded (as
  /// Foundation's does: a reader may try another type for the same element).
  mutating func take<T>(_ type: Any.Type, _ convert: (JSONValue, [any CodingKey]) throws -> T) throws -> T {
    let (value, path) = try next(type)
    let result = try convert(value, path)
    currentIndex += 1
    return result
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd else { return false }
    guard elements[currentIndex] == .null else { return false }
    currentIndex += 1
    return true
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool { try take(type, Primitive.bool) }
  mutating func decode(_ type: String.Type) throws -> String { try take(type, Primitive.string) }
  mutating func decode(_ type: Double.Type) throws -> Double { try take(type, Primitive.double) }
  mutating func decode(_ type: Float.Type) throws -> Float { try take(type, Primitive.float) }
  mutating func decode(_ type: Int.Type) throws -> Int { try take(type, Primitive.integer) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try take(type, Primitive.integer) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try take(type, Primitive.integer) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try take(type, Primitive.integer) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try take(type, Primitive.integer) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try take(type, Primitive.integer) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try take(type, Primitive.integer) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try take(type, Primitive.integer) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try take(type, Primitive.integer) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try take(type, Primitive.integer) }
  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try take(type) { try Primitive.decode(type, $0, $1) } }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
    try take([String: Any].self) { try ValueDecoder($0, codingPath: $1).container(keyedBy: type) }
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try take([Any].self) { try ValueDecoder($0, codingPath: $1).unkeyedContainer() }
  }

  mutating func superDecoder() throws -> any Decoder { try take(JSONValue.self) { ValueDecoder($0, codingPath: $1) } }
}

private struct SingleContainer: SingleValueDecodingContainer {
  let value: JSONValue
  let codingPath: [any CodingKey]

  func decodeNil() -> Bool { value == .null }
  func decode(_ type: Bool.Type) throws -> Bool { try Primitive.bool(value, codingPath) }
  func decode(_ type: String.Type) throws -> String { try Primitive.string(value, codingPath) }
  func decode(_ type: Double.Type) throws -> Double { try Primitive.double(value, codingPath) }
  func decode(_ type: Float.Type) throws -> Float { try Primitive.float(value, codingPath) }
  func decode(_ type: Int.Type) throws -> Int { try Primitive.integer(value, codingPath) }
  func decode(_ type: Int8.Type) throws -> Int8 { try Primitive.integer(value, codingPath) }
  func decode(_ type: Int16.Type) throws -> Int16 { try Primitive.integer(value, codingPath) }
  func decode(_ type: Int32.Type) throws -> Int32 { try Primitive.integer(value, codingPath) }
  func decode(_ type: Int64.Type) throws -> Int64 { try Primitive.integer(value, codingPath) }
  func decode(_ type: UInt.Type) throws -> UInt { try Primitive.integer(value, codingPath) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try Primitive.integer(value, codingPath) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try Primitive.integer(value, codingPath) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try Primitive.integer(value, codingPath) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try Primitive.integer(value, codingPath) }
  func decode<T: Decodable>(_ type: T.Type) throws -> T { try Primitive.decode(type, value, codingPath) }
}
