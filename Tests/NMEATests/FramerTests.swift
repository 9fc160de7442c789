import NMEA
import NMEASimulation
import TestHelpers
import Testing

@Suite struct FramerTests {
  /// A stream with every kind of trouble a serial line brings, and what it must count.
  static let troubled: [UInt8] = {
    var bytes: [UInt8] = []
    bytes += Array("# Date: 2024-05-01\r\n".utf8)
    bytes += Array(nmea("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,").utf8)
    bytes += [0, 0, 0, 0]  // NUL padding: 4 noise bytes
    bytes += [0xB5, 0x62, 0x01, 0x07, 0x24, 0x0D, 0x0A, 0x41]  // UBX packet with `$` and CRLF inside
    bytes += Array(nmea("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W").utf8)
    bytes += Array("$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1*00\r\n".utf8)  // bad checksum
    bytes += Array("$$".utf8) + Array(nmea("GPVTG,054.7,T,034.4,M,005.5,N,010.2,K").dropFirst().utf8)
    bytes += Array("\r\r\n\n\r\n".utf8)  // blank lines
    bytes += Array("gpsd:INFO: screen text\r\n".utf8)  // 22 noise bytes
    bytes += Array("$GPGLL,4916.45,N,12311.12,W,225444,A\r\n".utf8)  // no checksum
    bytes += Array("$GPZDA,201530.00,04,07,2002,00,00*6".utf8) + Array(nmea("GPHDT,274.07,T").utf8)  // cut short
    bytes += Array(("$GPTXT," + String(repeating: "X", count: 300) + "*00\r\n").utf8)  // overlong
    bytes += Array(nmea("GPTXT,01,01,02,ANTSTATUS=OK").lowercasedChecksum.utf8)
    bytes += Array("$G*00\r\n".utf8)  // address too short: malformed
    bytes += Array(nmea("GPGGA,123520,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", terminator: "").utf8)  // no line end
    return bytes
  }()

  static let troubledSentences = [
    "$GPGGA", "$GPRMC", "$GPVTG", "$GPHDT", "$GPTXT", "$GPGGA",
  ]

  /// Talker and type are read from addresses of every accepted length, proprietary or not,
  /// whether the address is followed by more bytes or ends the buffer.
  @Test func talkerAndTypeOfEveryAddressLength() {
    for address in [
      "GP", "GPG", "GPGSV", "GNGSVXYZ", "GPABCDEFG", "GPABCDEFGH", "PU", "PUBX", "PMTK001", "PABCDEFGH", "PABCDEFGHI", "PQTMJAMMINGSTATUS",
      "PQTMGEOFENCESTATUS", "PABCDEFGHIJKLMNOPQRSTUVW",
    ] {
      let talker = String(address.prefix(address.hasPrefix("P") ? 1 : 2))
      let type = String(address.dropFirst(talker.count).prefix(8))
      for text in [nmea(address + ",1,2"), nmea(address), "$" + address] {
        var framer = Framer(options: .init(acceptsMissingChecksum: true))
        framer.append(Array(text.utf8))
        framer.finish()
        let sentence = framer.next()
        #expect(sentence?.talker.description == talker, "\(text.debugDescription)")
        #expect(sentence?.type.description == type, "\(text.debugDescription)")
      }
    }
  }

  /// A proprietary address runs to 24 characters (Quectel's to 18), any other to 10: longer
  /// is no sentence.
  @Test func tooLongAnAddressIsMalformed() {
    for address in ["GPABCDEFGHI", "PABCDEFGHIJKLMNOPQRSTUVWX"] {
      var framer = Framer()
      framer.append(Array(nmea(address + ",1").utf8))
      framer.finish()
      #expect(framer.next() == nil && framer.counters.malformed == 1, "\(address)")
    }
  }

  @Test func troubledStreamFramesTheGoodSentencesAndCountsTheRest() {
    let result = frame(Self.troubled, chunks: Chunking.whole(Self.troubled.count))
    #expect(result.sentences.map { String($0.prefix(6)) } == Self.troubledSentences)
    let zdaFragment = "$GPZDA,201530.00,04,07,2002,00,00*6".utf8.count
    var expected = Framer.Counters()
    expected.sentences = 6
    expected.badChecksum = 1
    expected.missingChecksum = 1  // the GLL
    expected.overlong = 1
    expected.malformed = 2  // the `$` inside the UBX packet, and `$G*00`
    expected.comments = 1
    // NULs, UBX bytes before its `$`, the `A` after its CRLF, the doubled `$`, the screen
    // text, and the ZDA cut short by the next `$`.
    expected.noiseBytes = 4 + 4 + 1 + 1 + 22 + zdaFragment
    // Lines that begin with noise: the NULs, the `A` after a CRLF, and the screen text.
    expected.noiseLines = 3
    #expect(result.counters == expected)
    #expect(result.date == UTCDate(year: 2024, month: 5, day: 1))
  }

  @Test func troubledStreamFramesTheSameHoweverItIsSplit() {
    let (failures, reference) = DecoderVerifier.verify({ Framer() }, Self.troubled)
    #expect(failures.isEmpty, "\(failures)")
    #expect(reference.outputs.count == Self.troubledSentences.count)
  }

  @Test(.offThePool, arguments: Fixtures.goldenNames)
  func fixtureFramesTheSameHoweverItIsSplit(_ name: String) throws {
    // Every 61st index: splitting a whole capture at each of its 70,000 indices would take
    // minutes in a debug build (the troubled stream above is split at every one).
    let bytes = try Fixtures.capture(name)
    let (failures, reference) = DecoderVerifier.verify({ Framer() }, bytes, stride: 61)
    #expect(failures.isEmpty, "\(failures)")
    #expect(reference.summary.badChecksum == 0 && reference.summary.noiseBytes == 0)
  }

  // MARK: - One malformation at a time

  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    var input: String
    var sentences: [String]
    var counters: [KeyPath<Framer.Counters, Int> & Sendable: Int]
    var testDescription: String { name }
  }

  static let gga = nmea("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", terminator: "")

  static let cases: [Case] = [
    Case(name: "CRLF", input: gga + "\r\n", sentences: [gga], counters: [\.sentences: 1]),
    Case(name: "LF only", input: gga + "\n", sentences: [gga], counters: [\.sentences: 1]),
    Case(name: "CR only", input: gga + "\r", sentences: [gga], counters: [\.sentences: 1]),
    Case(name: "CR CR LF", input: gga + "\r\r\n", sentences: [gga], counters: [\.sentences: 1]),
    Case(name: "no line end at end of input", input: gga, sentences: [gga], counters: [\.sentences: 1]),
    Case(name: "doubled $", input: "$" + gga + "\r\n", sentences: [gga], counters: [\.sentences: 1, \.noiseBytes: 1]),
    Case(
      name: "$ mid-line restarts", input: "$GPGGA,1235" + gga + "\r\n", sentences: [gga],
      counters: [\.sentences: 1, \.noiseBytes: 11]),
    Case(name: "lower-case checksum", input: "$GPHDT,108.0,T*3c\r\n", sentences: ["$GPHDT,108.0,T*3c"], counters: [\.sentences: 1]),
    Case(name: "bad checksum", input: "$GPHDT,1.0,T*35\r\n", sentences: [], counters: [\.badChecksum: 1]),
    Case(name: "checksum not hex", input: "$GPHDT,1.0,T*3G\r\n", sentences: [], counters: [\.malformed: 1]),
    Case(name: "one checksum digit", input: "$GPHDT,1.0,T*3\r\n", sentences: [], counters: [\.malformed: 1]),
    Case(name: "junk after checksum", input: "$GPHDT,1.0,T*34  \r\n", sentences: [], counters: [\.malformed: 1]),
    Case(name: "missing checksum", input: "$GPHDT,1.0,T\r\n", sentences: [], counters: [\.missingChecksum: 1]),
    Case(name: "lower-case address", input: nmea("gpHDT,1.0,T"), sentences: [], counters: [\.malformed: 1]),
    Case(name: "address too long", input: nmea("GPHDTXXXXXXX,1.0,T"), sentences: [], counters: [\.malformed: 1]),
    Case(name: "empty sentence", input: "$*00\r\n", sentences: [], counters: [\.malformed: 1]),
    Case(
      name: "NUL inside", input: "$GPHDT,1.0\u{0},T*34\r\n" + gga + "\r\n", sentences: [gga],
      counters: [\.sentences: 1, \.noiseBytes: 16]),
    Case(name: "blank lines only", input: "\r\n\n\r\r\n", sentences: [], counters: [:]),
    Case(name: "text at line start", input: "hello\r\n" + gga + "\r\n", sentences: [gga], counters: [\.sentences: 1, \.noiseBytes: 5]),
    Case(name: "comment", input: "# a note\r\n" + gga + "\r\n", sentences: [gga], counters: [\.sentences: 1, \.comments: 1]),
    Case(
      name: "overlong", input: "$GPTXT," + String(repeating: "A", count: 250) + "*00\r\n" + gga + "\n", sentences: [gga],
      counters: [\.sentences: 1, \.overlong: 1]),
    Case(
      name: "longest accepted", input: nmea("PXXXX," + String(repeating: "A", count: Framer.maximumSentenceLength - 10)),
      sentences: [String(nmea("PXXXX," + String(repeating: "A", count: Framer.maximumSentenceLength - 10)).dropLast())],
      counters: [\.sentences: 1]),
    Case(
      name: "one byte too long", input: nmea("PXXXX," + String(repeating: "A", count: Framer.maximumSentenceLength - 9)),
      sentences: [], counters: [\.overlong: 1]),
    Case(
      name: "encapsulated", input: "!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0*26\r\n",
      sentences: ["!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0*26"], counters: [\.sentences: 1]),
  ]

  @Test(arguments: cases)
  func malformation(_ testCase: Case) {
    let bytes = Array(testCase.input.utf8)
    let result = frame(bytes, chunks: Chunking.whole(bytes.count))
    #expect(result.sentences == testCase.sentences)
    let all: [(String, KeyPath<Framer.Counters, Int>)] = [
      ("sentences", \.sentences), ("badChecksum", \.badChecksum), ("missingChecksum", \.missingChecksum),
      ("overlong", \.overlong), ("malformed", \.malformed), ("noiseBytes", \.noiseBytes), ("comments", \.comments),
    ]
    for (name, keyPath) in all {
      let expected = testCase.counters.first { $0.key == keyPath }?.value ?? 0
      #expect(result.counters[keyPath: keyPath] == expected, "\(name)")
    }
  }

  @Test func missingChecksumIsAcceptedWhenAskedFor() {
    let bytes = Array("$GPHDT,1.0,T\r\n".utf8)
    let result = frame(bytes, chunks: Chunking.whole(bytes.count), options: .init(acceptsMissingChecksum: true))
    #expect(result.sentences == ["$GPHDT,1.0,T"])
    #expect(result.counters.missingChecksum == 1)
    #expect(result.counters.sentences == 1)
  }

  @Test(.offThePool) func memoryStaysBoundedOnEndlessGarbage() {
    var framer = Framer()
    var generator = SplitMix64(seed: 7)
    for _ in 0..<2000 {
      // 1 KiB of random bytes without line ends: worst case for a line-based framer.
      let chunk = (0..<1024).map { _ in UInt8(truncatingIfNeeded: generator.next()) | 0x20 }.map { $0 == 0x0D || $0 == 0x0A ? 0x41 : $0 }
      framer.append(chunk)
      while framer.next() != nil {}
      #expect(framer.bufferedByteCount <= Framer.maximumSentenceLength + 1)
    }
  }

  @Test func longRunOfValidSentencesKeepsTheBufferSmall() {
    var framer = Framer()
    let line = Array(Self.gga.utf8) + [0x0D, 0x0A]
    for _ in 0..<10_000 {
      framer.append(line.prefix(40))
      while framer.next() != nil {}
      framer.append(line.dropFirst(40))
      while let sentence = framer.next() { #expect(sentence.type == .gga) }
      #expect(framer.bufferedByteCount < line.count)
    }
    #expect(framer.counters.sentences == 10_000)
  }

  @Test func dateCommentAcceptsSpacingAndIgnoresNonsense() {
    for (line, date) in [
      ("#Date: 2024-05-01", UTCDate(year: 2024, month: 5, day: 1)),
      ("#   Date:   2030-12-31   ", UTCDate(year: 2030, month: 12, day: 31)),
      ("# Date: 2024-02-30", nil),
      ("# Date: 9999-01-01", nil),  // beyond what a nanosecond timestamp can hold
      ("# Date: tomorrow", nil),
      ("# Device: /dev/ttyUSB0", nil),
    ] as [(String, UTCDate?)] {
      let bytes = Array((line + "\n").utf8)
      #expect(frame(bytes, chunks: Chunking.whole(bytes.count)).date == date, "\(line)")
    }
  }

  @Test func sentenceOutlivesLaterAppends() throws {
    var framer = Framer()
    framer.append(Array(nmea("GPHDT,1.0,T").utf8))
    let first = framer.next()
    let sentence = try #require(first)
    framer.append(Array(repeating: UInt8(ascii: "Z"), count: 10_000))
    _ = framer.next()
    #expect(sentence.description == "$GPHDT,1.0,T*34")
  }
}

extension String {
  /// The same sentence with its checksum's hex digits in lower case.
  var lowercasedChecksum: String {
    guard let star = lastIndex(of: "*") else { return self }
    return String(self[..<star]) + self[star...].lowercased()
  }
}

/// The framer as the shared decoder verifier sees it: sentences out, its counters compared.
extension Framer: VerifiableDecoder {
  public mutating func nextOutput() -> [UInt8]? { next().map { Array($0.bytes) } }
  public var summary: Counters { counters }
}
