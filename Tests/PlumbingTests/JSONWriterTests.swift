import Plumbing
import TestHelpers
import Testing

@Suite struct JSONWriterTests {
  @Test func doublesAreTheShortestTextThatReadsBackExactly() {
    for value in [0.1, -122.41941833333333, 47.376900000000006, 1e-5, 1e300, -0.0, 410.0, .leastNonzeroMagnitude] {
      var writer = JSONWriter()
      writer.beginObject()
      writer.field("v", value)
      writer.endObject()
      #expect(writer.string == "{\"v\":\(value.description)}")
      let text = writer.string.dropFirst(5).dropLast()
      #expect(Double(String(text)) == value)
    }
  }

  /// The fast path for few decimals must spell every value as `description` does, and the
  /// values around its edges (an exponent's thresholds, ties of ulps, nine decimals and ten)
  /// go to the general one; a fixed seed keeps the run the same.
  @Test(.offThePool) func doublesWithFewDecimalsAreSpelledAsDescriptionSpellsThem() {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func random() -> UInt64 {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return state
    }
    var values: [Double] = [
      0.001, 0.000999, 0.0001, 1e15, 999_999_999_999_999.9, 1e14, 0.5, 1.0 / 3, 0.1 + 0.2, 9_007_199_254_740_992,
      123_456.123456789, 123_456.1234567891, -0.0, 0.0, 8.5417, -180, 179.999999999, 1e16, 9.1e15,
      123_456_789_012_345.67,
    ]
    for _ in 0..<200_000 {
      var scale = 1.0
      for _ in 0..<Int(random() % 11) { scale *= 10 }
      let units = Double(Int64(bitPattern: random()) % 100_000_000_000)
      values.append(units / scale)
      values.append(Double(bitPattern: random()))
      // Large values, whose ulps are wider than their last decimals.
      values.append(Double(random() % 100_000_000_000_000_000) / scale)
    }
    var writer = JSONWriter()
    for value in values where value.isFinite {
      writer.removeAll()
      writer.appendShortest(value)
      if writer.string != value.description {
        Issue.record("\(value.description) written as \(writer.string)")
        return
      }
    }
  }

  @Test func unknownValuesAreLeftOut() {
    var writer = JSONWriter()
    writer.beginObject()
    writer.field("nan", Double.nan)
    writer.field("infinite", Double.infinity)
    writer.field("course", nonNegative: -1)
    writer.field("speed", nonNegative: 0)
    writer.endObject()
    #expect(writer.string == #"{"speed":0.0}"#)
  }

  @Test func integersIncludingTheExtremes() {
    var writer = JSONWriter()
    writer.beginObject()
    for (index, value) in [0, 7, -7, 10, 99, 100, Int.max, Int.min].enumerated() {
      writer.key("\(index)")
      writer.appendInteger(value)
    }
    // A key known when the program is written goes with its number in one append.
    writer.field("least", Int.min)
    writer.field("most", Int.max)
    writer.endObject()
    #expect(
      writer.string
        == #"{"0":0,"1":7,"2":-7,"3":10,"4":99,"5":100,"6":9223372036854775807,"7":-9223372036854775808,"least":-9223372036854775808,"most":9223372036854775807}"#
    )
  }

  @Test func stringsAreEscapedOnlyWhereJSONRequires() {
    var writer = JSONWriter()
    writer.beginObject()
    writer.field("plain", "Zürich Hbf, platform 3")
    writer.field("quoted", "say \"hi\"\\ok\n\t\r\u{1}")
    writer.endObject()
    #expect(writer.string == #"{"plain":"Zürich Hbf, platform 3","quoted":"say \"hi\"\\ok\n\t\r\u0001"}"#)
  }

  @Test func nestingSeparatesEachLevelOnItsOwn() {
    var writer = JSONWriter()
    writer.beginObject()
    writer.field("event", "x")
    writer.beginArray("list")
    for index in 0..<2 {
      writer.element()
      writer.beginObject()
      writer.field("i", index)
      writer.object("inner") { $0.field("ok", true) }
      writer.endObject()
    }
    writer.endArray()
    writer.field("after", false)
    writer.endObject()
    #expect(writer.string == #"{"event":"x","list":[{"i":0,"inner":{"ok":true}},{"i":1,"inner":{"ok":true}}],"after":false}"#)
  }

  @Test func oneWriterServesAStreamOfLines() {
    var writer = JSONWriter()
    for index in 0..<3 {
      writer.beginObject()
      writer.field("n", index)
      writer.endObject()
      writer.newline()
    }
    #expect(writer.string == "{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n")
    writer.removeAll()
    #expect(writer.bytes.isEmpty)
    writer.beginObject()
    writer.field("n", 3)
    writer.endObject()
    #expect(writer.string == #"{"n":3}"#)
  }

  @Test func zeroPaddedDigitsForTimestamps() {
    var writer = JSONWriter()
    writer.appendDigits(7, count: 3)
    writer.append(ascii: UInt8(ascii: ":"))
    writer.appendDigits(2024, count: 4)
    #expect(writer.string == "007:2024")
  }

  @Test func fixedDecimalsRoundHalfAwayFromZeroWithoutANegativeZero() {
    let cases: [(Double, Int, String)] = [
      (47.376900001, 9, "47.376900001"), (-122.5, 4, "-122.5000"), (0.0004, 3, "0.000"), (-0.0004, 3, "0.000"),
      (12.3456, 2, "12.35"), (1e-9, 9, "0.000000001"), (410, 4, "410.0000"), (2.5, 0, "3"), (99.99, 2, "99.99"),
    ]
    for (value, decimals, text) in cases {
      var writer = JSONWriter()
      writer.appendFixed(value, decimals: decimals)
      #expect(writer.string == text, "\(value) with \(decimals) decimals")
    }
    var writer = JSONWriter()
    writer.beginObject()
    writer.field("lat", Double.nan, decimals: 9)
    writer.field("lon", 8.5, decimals: 9)
    writer.endObject()
    #expect(writer.string == #"{"lon":8.500000000}"#)
  }
}
