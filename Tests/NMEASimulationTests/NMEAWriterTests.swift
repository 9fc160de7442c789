import NMEA
import NMEASimulation
import Testing

@Suite struct NMEAWriterTests {
  @Test func aLineGetsItsChecksumAndLineEnd() {
    #expect(NMEAWriter.line("GPGLL,4916.45,N,12311.12,W,225444,A") == "$GPGLL,4916.45,N,12311.12,W,225444,A*31\r\n")
  }

  @Test(arguments: [
    (47.376_90, 5, "4722.61400,N"),
    (-33.86, 4, "3351.6000,S"),
    (0.999_999_99, 4, "0100.0000,N"),  // 59.99999… minutes round up into the next degree
    (-0.000_000_1, 2, "0000.00,S"),
  ])
  func latitudesAreWrittenAsDegreesAndMinutes(_ degrees: Double, _ decimals: Int, _ expected: String) {
    var writer = NMEAWriter()
    writer.begin("X")
    writer.latitude(degrees, decimals: decimals)
    #expect(String(decoding: writer.bytes, as: UTF8.self) == "$X," + expected)
  }

  @Test func longitudesHaveThreeDegreeDigits() {
    var writer = NMEAWriter()
    writer.begin("X")
    writer.longitude(-8.5417, decimals: 4)
    #expect(String(decoding: writer.bytes, as: UTF8.self) == "$X,00832.5020,W")
  }

  @Test func numbersTimesAndDatesHaveTheirFixedWidths() {
    var writer = NMEAWriter()
    writer.begin("X")
    writer.decimal(-1.25, decimals: 3)
    writer.decimal(0.0004, decimals: 3)
    writer.integer(7, width: 2)
    writer.hexadecimal(10)
    writer.time(UTCTime(hour: 8, minute: 5, second: 9, nanosecond: 250_000_000), decimals: 2)
    writer.date(UTCDate(year: 2024, month: 2, day: 29))
    writer.empty(2)
    #expect(String(decoding: writer.bytes, as: UTF8.self) == "$X,-1.250,0.000,07,A,080509.25,290224,,")
  }

  @Test func whatItWritesFramesAndDecodes() throws {
    var writer = NMEAWriter()
    writer.begin("GPGGA")
    writer.time(UTCTime(hour: 12, minute: 0, second: 0), decimals: 2)
    writer.latitude(48.117_3, decimals: 4)
    writer.longitude(11.516_666_666, decimals: 4)
    writer.integer(1)
    writer.integer(8, width: 2)
    writer.decimal(0.9, decimals: 1)
    writer.decimal(545.4, decimals: 1)
    writer.field("M")
    writer.decimal(46.9, decimals: 1)
    writer.field("M")
    writer.empty(2)
    writer.end()
    let gga = try GGA(try #require(Sentence(String(decoding: writer.bytes, as: UTF8.self))))
    #expect(gga.latitude?.degrees == 48 + 7.038 / 60 && gga.altitude == FixedPoint(mantissa: 5454, scale: 1))
  }
}
