import NMEA
import Testing

/// Each field decoder alone, through a one-field proprietary sentence.
@Suite struct FieldDecoderTests {
  func field<Value>(_ text: String, _ read: (inout Fields) throws(NMEAError) -> Value) throws -> Value {
    let sentence = try #require(Sentence(nmea("PXXX,\(text)")))
    return try sentence.withFields { (fields: inout Fields) throws(NMEAError) in try read(&fields) }
  }

  @Test(
    arguments: [
      ("0", 0, 0), ("12.5", 125, 1), ("-0.125", -125, 3), ("+7.", 7, 0), (".5", 5, 1), ("007.10", 710, 2),
      ("123456789.123456789", 123_456_789_123_456_789, 9), ("1.1234567890123456789999", 112_345_678_901_234_567, 17),
      ("0.00000000000000000000000001", 0, 18),
    ] as [(String, Int64, Int8)])
  func decimalIsExact(_ text: String, _ mantissa: Int64, _ scale: Int8) throws {
    #expect(try field(text) { (f: inout Fields) throws(NMEAError) in try f.decimal() } == FixedPoint(mantissa: mantissa, scale: scale))
  }

  /// Every length of integer, with and without sign, leading zeros and trailing junk, reads
  /// by the same rules wherever it stands: last in the buffer, among more fields, or last in
  /// its sentence with more digits after it in the buffer.
  @Test func integersReadTheSameWhereverTheyStandInTheBuffer() throws {
    var texts = ["0", "7", "00", "09", "-5", "+5", "12a", "1.5", "123456789012345678", "1234567890123456789", "a1", "-"]
    var random = SystemRandomNumberGenerator()
    for length in 1...19 {
      for _ in 0..<20 { texts.append(String((0..<length).map { _ in "0123456789".randomElement(using: &random)! })) }
    }
    for text in texts {
      for stream in [nmea("PXXX,\(text)"), nmea("PXXX,\(text),12345678,ABCDEFGH,1"), nmea("PXXX,\(text)") + nmea("PXXX,9")] {
        var framer = Framer()
        framer.append(Array(stream.utf8))
        let framed = framer.next()
        let sentence = try #require(framed)
        let layout = stream.debugDescription
        let digits = text.drop { $0 == "-" || $0 == "+" }
        let valid = !digits.isEmpty && digits.count <= 18 && digits.allSatisfy(\.isNumber)
        let expected = valid ? Int(text) : nil
        let result = Result { () throws(NMEAError) in
          try sentence.withFields { (f: inout Fields) throws(NMEAError) in try f.integer() }
        }
        switch result {
        case .success(let value): #expect(valid && value == expected, "\(layout)")
        case .failure: #expect(!valid, "\(layout)")
        }
      }
    }
  }

  @Test(arguments: ["1.2.3", "-", ".", "1e5", "12a", "99999999999999999999"])
  func decimalRejects(_ text: String) {
    #expect(throws: NMEAError.invalidField(SentenceType("XXX"), field: 1)) {
      try field(text) { (f: inout Fields) throws(NMEAError) in try f.decimal() }
    }
  }

  @Test(arguments: [
    "4807.038", "4807.03812345", "0000.00000001", "8959.99999999", "0030.5", "807.038", "4807",
  ])
  func latitudeEqualsDegreesPlusMinutesOverSixty(_ text: String) throws {
    let coordinate = try #require(try field("\(text),N") { (f: inout Fields) throws(NMEAError) in try f.latitude() })
    // Independent exact arithmetic: the minutes as an integer count of 1e-8 minutes.
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    let whole = Int(parts[0])!
    let fraction = parts.count == 2 ? String(parts[1]) : ""
    let nanoMinutes = Int64(whole % 100) * 100_000_000 + Int64((fraction + String(repeating: "0", count: 8 - fraction.count)))!
    let exact = Double(whole / 100) + Double(nanoMinutes) / 6_000_000_000
    #expect(abs(coordinate.degrees - exact) < 1e-12, "\(text)")
  }

  @Test(arguments: [("4807.038,X"), ("4860.000,N"), ("9000.001,N"), ("48a7.038,N"), ("48.07,N"), ("4807.038,")])
  func latitudeRejects(_ text: String) {
    #expect(throws: NMEAError.self) { try field(text) { (f: inout Fields) throws(NMEAError) in try f.latitude() } }
  }

  @Test func longitudeReachesOneEighty() throws {
    let longitude = try field("18000.000,W") { (f: inout Fields) throws(NMEAError) in try f.longitude() }
    #expect(longitude?.degrees == -180)
    #expect(throws: NMEAError.self) { try field("18000.001,E") { (f: inout Fields) throws(NMEAError) in try f.longitude() } }
  }

  @Test(
    arguments: [
      ("000000", 0), ("235959", 86_399_000_000_000), ("235960", 86_400_000_000_000), ("123519.5", 45_319_500_000_000),
      ("123519.123456789", 45_319_123_456_789),
    ] as [(String, Int64)])
  func timeOfDay(_ text: String, _ nanoseconds: Int64) throws {
    #expect(try field(text) { (f: inout Fields) throws(NMEAError) in try f.time() }?.nanosecondsSinceMidnight == nanoseconds)
  }

  @Test(arguments: ["240000", "126000", "12351", "123519.x", "1235195", "12:35:19"])
  func timeRejects(_ text: String) {
    #expect(throws: NMEAError.self) { try field(text) { (f: inout Fields) throws(NMEAError) in try f.time() } }
  }

  @Test(arguments: [
    ("230394", UTCDate(year: 1994, month: 3, day: 23)), ("010180", UTCDate(year: 1980, month: 1, day: 1)),
    ("311279", UTCDate(year: 2079, month: 12, day: 31)), ("290224", UTCDate(year: 2024, month: 2, day: 29)),
  ])
  func dateWithTwoDigitYear(_ text: String, _ date: UTCDate) throws {
    #expect(try field(text) { (f: inout Fields) throws(NMEAError) in try f.date() } == date)
  }

  @Test(arguments: ["290223", "320124", "001024", "01012", "0101245"])
  func dateRejects(_ text: String) {
    #expect(throws: NMEAError.self) { try field(text) { (f: inout Fields) throws(NMEAError) in try f.date() } }
  }

  @Test func dateArithmeticRoundTripsAcrossCenturies() {
    for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
      #expect(UTCDate(daysSince1970: days).daysSince1970 == days)
    }
    #expect(UTCDate(year: 1970, month: 1, day: 1).daysSince1970 == 0)
    #expect(UTCDate(year: 2000, month: 3, day: 1).daysSince1970 == 11_017)
  }

  @Test func missingTrailingFieldsReadAsUnknown() throws {
    let values = try field("5") { (f: inout Fields) throws(NMEAError) in (try f.integer(), try f.integer(), f.hasMore) }
    #expect(values.0 == 5 && values.1 == nil && values.2 == false)
  }
}
