import NMEA
import Testing

/// A value no receiver on or near the Earth can report is a corrupted field: the sentence is
/// rejected, naming the field, as text that does not parse is.
@Suite struct PlausibilityTests {
  @Test(arguments: [
    ("GPGGA,120000,4807.038,N,01131.000,E,1,08,0.9,2000000.0,M,46.9,M,,", 9),  // altitude beyond low orbit
    ("GPGGA,120000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,999.9,M,,", 11),  // geoid separation
    ("GPGGA,120000,4807.038,N,01131.000,E,1,08,150.0,545.4,M,46.9,M,,", 8),  // HDOP
    ("GNGSA,A,3,01,02,03,,,,,,,,,,1.5,0.9,200.0", 17),  // VDOP
    ("GPRMC,120000,A,4807.038,N,01131.000,E,99999.0,45.0,010524,,,A", 7),  // speed, knots
    ("GPRMC,120000,A,4807.038,N,01131.000,E,10.0,361.0,010524,,,A", 8),  // course
    ("GPVTG,45.0,T,,M,10.0,N,99999.0,K,A", 7),  // speed, km/h
    ("GPGST,120000,1.0,2.0,1.5,400.0,1.8,1.6,3.0", 5),  // orientation
    ("GPGST,120000,-1.0,2.0,1.5,30.0,1.8,1.6,3.0", 2),  // a negative error
    ("HEHDT,400.0,T", 1),  // heading
  ])
  func implausibleValuesAreRejectedByField(_ body: String, _ field: Int) throws {
    let sentence = try #require(Sentence(nmea(body)))
    #expect(throws: NMEAError.invalidField(sentence.type, field: field), "\(body)") { try Message(sentence) }
  }

  @Test(arguments: [
    "GPGGA,120000,4807.038,N,01131.000,E,1,08,99.99,-420.0,M,-105.2,M,,",  // Dead Sea shore, deepest geoid low
    "GPRMC,120000,A,4807.038,N,01131.000,E,0.0,360.0,010524,,,A",  // north written as 360
    "GPVTG,0.0,T,,M,-0.0,N,0.0,K,A",  // a negative zero
    "GPGST,120000,0.0,9999.0,9999.0,0.0,9999.0,9999.0,9999.0",  // "no idea" errors
  ])
  func extremesThatReceiversDoWriteAreKept(_ body: String) throws {
    let sentence = try #require(Sentence(nmea(body)))
    #expect(throws: Never.self, "\(body)") { try Message(sentence) }
  }
}
