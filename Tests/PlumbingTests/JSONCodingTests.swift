import Foundation
import Plumbing
import Testing

/// The program's `Decoder` and `Encoder` for JSON, held to Foundation's `JSONDecoder` and
/// `JSONEncoder` (with the `.sortedKeys` and `.withoutEscapingSlashes` the program asked of
/// it): the same values read, the same text written.
@Suite struct JSONCodingTests {
  struct Sample: Codable, Equatable {
    enum Kind: String, Codable { case fix, none }
    struct Inner: Codable, Equatable {
      var values: [Double]
      var flag: Bool?
    }
    var name: String
    var count: Int
    var small: UInt8
    var ratio: Double
    var kind: Kind
    var inner: Inner
    var optional: String?
    var table: [String: Int]
    var list: [Inner]
  }

  static let samples: [Sample] = [
    Sample(
      name: "a \"quoted\" /path\\ é 😀", count: -42, small: 255, ratio: 0.1, kind: .fix,
      inner: Sample.Inner(values: [1, 2.5, -0.0, 1e20, 1e-7, 123_456_789.123, 47.376_9, 410], flag: true), optional: nil,
      table: ["GGA": 3, "gsv": 1, "1005": 2, "B": 0], list: []),
    Sample(
      name: "", count: Int.max, small: 0, ratio: 3, kind: .none, inner: Sample.Inner(values: [], flag: nil), optional: "x",
      table: [:], list: [Sample.Inner(values: [0.5], flag: false)]),
  ]

  static func foundationText(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  @Test func writesWhatFoundationWrites() throws {
    for sample in Self.samples {
      let ours = String(decoding: try JSONValueEncoder.encode(sample), as: UTF8.self)
      #expect(ours == (try Self.foundationText(sample)))
    }
  }

  @Test func readsWhatFoundationReads() throws {
    for sample in Self.samples {
      let text = Array(try Self.foundationText(sample).utf8)
      let ours = try JSONValueDecoder.decode(Sample.self, from: text)
      #expect(ours == (try JSONDecoder().decode(Sample.self, from: Data(text))))
      #expect(ours == sample)
    }
  }

  @Test func integersAreReadExactly() throws {
    #expect(try JSONValueDecoder.decode([Int].self, from: Array("[2, 2.0, 2e1, -0, 9223372036854775807]".utf8)) == [2, 2, 20, 0, .max])
    for text in ["[2.5]", "[9223372036854775808]", "[1e400]", "[\"2\"]", "[true]"] {
      #expect(throws: (any Error).self, "\(text)") { try JSONValueDecoder.decode([Int].self, from: Array(text.utf8)) }
      #expect(throws: (any Error).self, "Foundation: \(text)") { try JSONDecoder().decode([Int].self, from: Data(text.utf8)) }
    }
    #expect(throws: (any Error).self) { try JSONValueDecoder.decode([UInt8].self, from: Array("[256]".utf8)) }
  }

  @Test func aMissingKeyAndAWrongKindSayWhere() throws {
    struct Needs: Decodable { var inner: [Sample.Inner] }
    #expect {
      try JSONValueDecoder.decode(Needs.self, from: Array(#"{"inner":[{"values":[1]},{"values":"x"}]}"#.utf8))
    } throws: { error in
      guard case .typeMismatch(_, let context) = error as? DecodingError else { return false }
      return context.codingPath.map(\.stringValue) == ["inner", "Index 1", "values"]
    }
    #expect {
      try JSONValueDecoder.decode(Needs.self, from: Array(#"{"other":1}"#.utf8))
    } throws: { error in
      guard case .keyNotFound(let key, _) = error as? DecodingError else { return false }
      return key.stringValue == "inner"
    }
    // null and a missing key are both nil for an optional, as Foundation reads them.
    let inner = try JSONValueDecoder.decode(Sample.Inner.self, from: Array(#"{"values":[],"flag":null}"#.utf8))
    #expect(inner.flag == nil)
  }

  @Test func aNumberJSONCannotHoldIsAnErrorNotText() {
    #expect(throws: EncodingError.self) { try JSONValueEncoder.encode([Double.nan]) }
    #expect(throws: EncodingError.self) { try JSONValueEncoder.encode(["x": Double.infinity]) }
  }

  /// A superclass's part goes under `super` and comes back from there.
  class Base: Codable {
    var base = 1
    init() {}
  }

  final class Derived: Base, @unchecked Sendable {
    var own = 2
    enum Key: CodingKey { case own }
    override init() { super.init() }
    required init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: Key.self)
      own = try container.decode(Int.self, forKey: .own)
      try super.init(from: container.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Key.self)
      try container.encode(own, forKey: .own)
      try super.encode(to: container.superEncoder())
    }
  }

  @Test func aSuperclassIsWrittenAndReadUnderSuper() throws {
    let value = Derived()
    value.base = 7
    let text = try JSONValueEncoder.encode(value)
    #expect(String(decoding: text, as: UTF8.self) == (try Self.foundationText(value)))
    let back = try JSONValueDecoder.decode(Derived.self, from: text)
    #expect(back.base == 7 && back.own == 2)
  }

  @Test func floatsAndControlCharactersAndDeepValuesAreWrittenAsFoundationWritesThem() throws {
    struct Odd: Codable, Equatable {
      var float: Float
      var floats: [Float]
      var text: String
    }
    let odd = Odd(float: 0.1, floats: [3, 1e-3, 16_777_216], text: "\u{08}\u{0C}\u{01}\t\"é/")
    #expect(String(decoding: try JSONValueEncoder.encode(odd), as: UTF8.self) == (try Self.foundationText(odd)))
    #expect(try JSONValueDecoder.decode(Odd.self, from: try JSONValueEncoder.encode(odd)) == odd)
    #expect(throws: (any Error).self) { try JSONValueDecoder.decode([Float].self, from: Array("[1e39]".utf8)) }
    // Deeper than a JSONWriter counts commas for: still JSON, still Foundation's text.
    var deep: [JSONValueTests.Nested] = [.leaf(0)]
    for level in 1...80 { deep = [.list(deep), .leaf(level)] }
    #expect(String(decoding: try JSONValueEncoder.encode(deep), as: UTF8.self) == (try Self.foundationText(deep)))
  }

  /// A reader that tries a type and, failing, another for the same element loses nothing.
  @Test func aFailedElementIsStillTheNextOne() throws {
    struct Lossy: Decodable {
      var numbers: [Int] = []
      init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd {
          if let number = try? container.decode(Int.self) { numbers.append(number) } else { _ = try container.decode(String.self) }
        }
      }
    }
    let text = Array(#"[1, "two", 3, "four", 5]"#.utf8)
    #expect(try JSONValueDecoder.decode(Lossy.self, from: text).numbers == [1, 3, 5])
    #expect(try JSONDecoder().decode(Lossy.self, from: Data(text)).numbers == [1, 3, 5])
  }

  /// A file an editor began with a byte-order mark reads as Foundation reads it.
  @Test func aByteOrderMarkIsSkipped() throws {
    let text: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("[1]".utf8)
    #expect(try JSONValueDecoder.decode([Int].self, from: text) == [1])
    #expect(try JSONDecoder().decode([Int].self, from: Data(text)) == [1])
  }
}
