import Foundation
import Plumbing
import Testing

/// The standard-library-only text search the program uses instead of the regex engine's,
/// held to Foundation's on every way of cutting short texts.
@Suite struct TextSearchTests {
  /// Every string of up to four of these pieces, for haystacks and needles alike.
  static let texts: [String] = {
    let pieces = ["a", "b", " | ", "\n", "ab"]
    var texts = [""]
    var frontier = [""]
    for _ in 0..<3 {
      frontier = frontier.flatMap { text in pieces.map { text + $0 } }
      texts += frontier
    }
    return texts
  }()

  @Test func findsAndCutsAsFoundationDoes() {
    for haystack in Self.texts {
      for needle in Self.texts.prefix(40) where !needle.isEmpty {
        #expect(haystack.includes(needle) == haystack.contains(needle), "\(haystack.debugDescription) ∋ \(needle.debugDescription)")
        #expect(
          haystack.pieces(separatedBy: needle).map(String.init) == haystack.components(separatedBy: needle),
          "\(haystack.debugDescription) / \(needle.debugDescription)")
        #expect(
          haystack.replacingEvery(needle, with: "<\(needle)>") == haystack.replacingOccurrences(of: needle, with: "<\(needle)>"),
          "\(haystack.debugDescription) with \(needle.debugDescription)")
      }
    }
  }

  @Test func aRangeIsTheTextsOwn() throws {
    let text = "https://example.org:8123/api"
    let range = try #require(text.range(ofText: "://"))
    #expect(text[..<range.lowerBound] == "https")
    #expect(text[range.upperBound...] == "example.org:8123/api")
    #expect(text.dropFirst(2).range(ofText: "ht") == nil)
  }
}
