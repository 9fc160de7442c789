/// Encodes `Encodable` values as one line of JSON through the standard library's `Encoder`
/// protocol, as the program used Foundation's `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes`: keys sorted, so the same value always reads the same; `nil`
/// optionals left out; a whole `Double` without a fraction (`3`, not `3.0`), any other as the
/// shortest text that reads back the same. See ``JSONValue`` for why the program has its own.
package enum JSONValueEncoder {
  /// Why a value cannot be written as JSON.
  package struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
    package var description: String
  }

  /// `value` as JSON text.
  package static func encode(_ value: some Encodable) throws -> [UInt8] {
    var writer = JSONWriter()
    write(try tree(of: value), into: &writer)
    return writer.bytes
  }

  /// `value` as a ``JSONValue``.
  package static func tree(of value: some Encodable) throws -> JSONValue {
    let root = Node()
    try Node.encode(value, into: root, codingPath: [])
    return root.json
  }

  /// Writes `value`, objects' keys sorted by their UTF-8 bytes (as Foundation sorts them), the
  /// commas its own: a value nests as deep as it does, not as deep as a writer keeps count.
  package static func write(_ value: JSONValue, into writer: inout JSONWriter) {
    switch value {
    case .null: writer.write("null")
    case .bool(let bool): writer.write(bool ? "true" : "false")
    case .number(let text): writer.write(text)
    case .string(let string): writer.string(string)
    case .array(let elements):
      writer.append(ascii: UInt8(ascii: "["))
      for (index, element) in elements.enumerated() {
        if index > 0 { writer.append(ascii: UInt8(ascii: ",")) }
        write(element, into: &writer)
      }
      writer.append(ascii: UInt8(ascii: "]"))
    case .object(let members):
      writer.append(ascii: UInt8(ascii: "{"))
      for (index, key) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
        if index > 0 { writer.append(ascii: UInt8(ascii: ",")) }
        writer.string(key)
        writer.append(ascii: UInt8(ascii: ":"))
        write(members[key]!, into: &writer)
      }
      writer.append(ascii: UInt8(ascii: "}"))
    }
  }

  /// A number as JSON writes it, by the shortest text that reads back as the same value
  /// (`description`), a whole one without its `.0`; `nil` for infinity and NaN, which JSON
  /// cannot hold.
  static func number<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F) -> String? {
    guard value.isFinite else { return nil }
    let text = value.description
    return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
  }
}

/// A value being encoded: filled in by containers, which may come back to it (a keyed
/// container asked for twice, a nested one) before the whole is written.
private final class Node {
  enum Content {
    case unset
    case value(JSONValue)
    case object([String: Node])
    case array([Node])
  }

  var content = Content.unset

  var json: JSONValue {
    switch content {
    case .unset: .object([:])
    case .value(let value): value
    case .object(let members): .object(members.mapValues(\.json))
    case .array(let elements): .array(elements.map(\.json))
    }
  }

  /// Encodes `value` into `node`: a primitive at once, anything else through its `encode(to:)`.
  static func encode(_ value: some Encodable, into node: Node, codingPath: [any CodingKey]) throws {
    switch value {
    case let bool as Bool: node.content = .value(.bool(bool))
    case let string as String: node.content = .value(.string(string))
    case let double as Double: node.content = .value(try number(double, codingPath))
    case let float as Float: node.content = .value(try number(float, codingPath))
    case let integer as Int: node.content = .value(.number(String(integer)))
    // The other integer types: their `encode(to:)` asks a single-value container to encode
    // them, which is this function again.
    case let integer as any BinaryInteger: node.content = .value(.number("\(integer)"))
    default: try value.encode(to: ValueEncoder(node: node, codingPath: codingPath))
    }
  }

  static func number<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F, _ path: [any CodingKey]) throws -> JSONValue {
    guard let text = JSONValueEncoder.number(value) else {
      throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: path, debugDescription: "\(value) is no JSON number"))
    }
    return .number(text)
  }

  func makeObject() {
    if case .object = content { return }
    content = .object([:])
  }

  func makeArray() {
    if case .array = content { return }
    content = .array([])
  }

  /// A new member `key` of this object.
  func member(_ key: String) -> Node {
    makeObject()
    let child = Node()
    if case .object(var members) = content {
      content = .unset  // one reference to the dictionary while it changes
      members[key] = child
      content = .object(members)
    }
    return child
  }

  /// A new last element of this array.
  func appended() -> Node {
    makeArray()
    let child = Node()
    if case .array(var elements) = content {
      content = .unset
      elements.append(child)
      content = .array(elements)
    }
    return child
  }

  var count: Int {
    if case .array(let elements) = content { return elements.count }
    return 0
  }
}

private struct ValueEncoder: Encoder {
  let node: Node
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    node.makeObject()
    return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    node.makeArray()
    return UnkeyedContainer(node: node, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(node: node, codingPath: codingPath) }
}

/// A key of an array's element, or the `super` of a keyed container, for the coding path.
private struct PlainKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(_ index: Int) {
    stringValue = "Index \(index)"
    intValue = index
  }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { self.init(intValue) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let node: Node
  let codingPath: [any CodingKey]

  mutating func encodeNil(forKey key: Key) { node.member(key.stringValue).content = .value(.null) }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    try Node.encode(value, into: node.member(key.stringValue), codingPath: codingPath + [key])
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey>
  {
    ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    ValueEncoder(node: node.member("super"), codingPath: codingPath + [PlainKey(stringValue: "super")])
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    ValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
  }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
  let node: Node
  let codingPath: [any CodingKey]

  var count: Int { node.count }

  private var nextPath: [any CodingKey] { codingPath + [PlainKey(count)] }

  mutating func encodeNil() { node.appended().content = .value(.null) }

  mutating func encode<T: Encodable>(_ value: T) throws {
    let path = nextPath
    try Node.encode(value, into: node.appended(), codingPath: path)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
    let path = nextPath
    return ValueEncoder(node: node.appended(), codingPath: path).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let path = nextPath
    return ValueEncoder(node: node.appended(), codingPath: path).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    let path = nextPath
    return ValueEncoder(node: node.appended(), codingPath: path)
  }
}

private struct SingleContainer: SingleValueEncodingContainer {
  let node: Node
  let codingPath: [any CodingKey]

  mutating func encodeNil() { node.content = .value(.null) }
  mutating func encode<T: Encodable>(_ value: T) throws { try Node.encode(value, into: node, codingPath: codingPath) }
}
