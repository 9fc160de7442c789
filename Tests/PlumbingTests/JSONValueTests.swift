import Foundation
import Plumbing
import Testing

/// The program's own JSON reader: RFC 8259 and nothing more lenient, held to Foundation's
/// `JSONSerialization` (an independent reader) on what is JSON and what is not, and bounded on
/// hostile text.
@Suite struct JSONValueTests {
  static func parses(_ text: String) -> Bool { (try? JSONValue(parsing: Array(text.utf8))) != nil }

  static func foundationParses(_ bytes: [UInt8]) -> Bool {
    (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
  }

  @Test func valuesReadAsWritten() throws {
    let value = try JSONValue(
      parsing: Array(#" {"a": [1, -2.5e3, true, false, null], "b": {"c": "d\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}} "#.utf8))
    #expect(
      value
        == .object([
          "a": .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null]),
          "b": .object(["c": .string("d\"\\/\u{08}\u{0C}\n\r\té😀")]),
        ]))
  }

  @Test(arguments: [
    "", " ", "{", "}", "[,]", "{,}", "[1,,]", "{\"a\":1,,}", "{'a':1}", "01", "1.", ".5", "+1", "-", "1e", "1e+", "NaN", "Infinity",
    "tru", "nul", "[1 2]", "{\"a\" 1}", "{1:2}", "\"a", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"",
    "\"\\ud800\\u0041\"", "\"\u{01}\"", "\"tab\there\"", "1 2", "[1]]", "{\"a\":1}}", "[", "[[]",
  ])
  func whatIsNotJSONIsRefused(_ text: String) {
    #expect(!Self.parses(text), "\(text.debugDescription)")
    #expect(!Self.foundationParses(Array(text.utf8)), "Foundation reads \(text.debugDescription)")
  }

  /// A comma before the close, as gpsd before 3.18 wrote some lists (and Foundation reads).
  @Test func aCommaBeforeTheCloseIsRead() throws {
    #expect(try JSONValue(parsing: Array("[1, ]".utf8)) == .array([.number("1")]))
    #expect(try JSONValue(parsing: Array(#"{"a":1 ,}"#.utf8)) == .object(["a": .number("1")]))
  }

  @Test func textThatIsNotUTF8IsRefused() {
    for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22]] {
      #expect((try? JSONValue(parsing: bytes)) == nil, "\(bytes)")
    }
  }

  @Test func nestingIsBoundedSoHostileTextCannotOverflowTheStack() {
    let deepest = String(repeating: "[", count: JSONValue.depthLimit) + String(repeating: "]", count: JSONValue.depthLimit)
    #expect(Self.parses(deepest))
    let tooDeep = String(repeating: "[", count: JSONValue.depthLimit + 1) + String(repeating: "]", count: JSONValue.depthLimit + 1)
    #expect(!Self.parses(tooDeep))
    // A megabyte of opening brackets is an error at the 65th, read no further.
    let hostile = [UInt8](repeating: UInt8(ascii: "["), count: 1 << 20)
    #expect {
      try JSONValue(parsing: hostile)
    } throws: { error in
      (error as? JSONValue.SyntaxError)?.offset == JSONValue.depthLimit
    }
  }

  /// Every line gpsd wrote in the fixtures, cut short and with one byte changed at every place:
  /// this reader and Foundation's agree on which are JSON.
  @Test func acceptsWhatFoundationAcceptsOnGPSDsLinesAndTheirMutations() throws {
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/gpsd")
    let files = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).filter { $0.hasSuffix(".jsonl") }
    #expect(files.count >= 5)
    var compared = 0
    for file in files {
      let text = try String(contentsOf: fixtures.appendingPathComponent(file), encoding: .utf8)
      // The first lines of each file, with every mutation: about a thousand texts per file.
      for line in text.split(separator: "\n").prefix(80) where line.utf8.count < 400 {
        let bytes = Array(line.utf8).filter { $0 != 0x0D }
        var variants: [[UInt8]] = [bytes]
        for cut in stride(from: 0, to: bytes.count, by: 7) { variants.append(Array(bytes[..<cut])) }
        for place in stride(from: 0, to: bytes.count, by: 3) {
          for replacement: UInt8 in [UInt8(ascii: "\""), UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "x"), 0x00] {
            var changed = bytes
            changed[place] = replacement
            variants.append(changed)
          }
        }
        for variant in variants {
          let ours = (try? JSONValue(parsing: variant)) != nil
          #expect(ours == Self.foundationParses(variant), "\(String(decoding: variant, as: UTF8.self))")
          compared += 1
        }
      }
    }
    #expect(compared > 4_000)
  }

  /// A recursive value, for nesting deeper than the reader allows.
  indirect enum Nested: Codable, Equatable {
    case leaf(Int)
    case list([Nested])

    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let number = try? container.decode(Int.self) { self = .leaf(number) } else { self = .list(try container.decode([Nested].self)) }
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .leaf(let number): try container.encode(number)
      case .list(let list): try container.encode(list)
      }
    }
  }
}
