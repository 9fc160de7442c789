import NMEA
import Testing

@Suite struct GGATests {
  @Test(arguments: talkers)
  func readsEveryField(_ talker: String) throws {
    let gga = try decode("\(talker)GGA,123519.25,4807.038,N,01131.000,E,4,08,0.9,545.4,M,46.9,M,1.5,0123", GGA.init)
    #expect(gga.talker.description == talker)
    #expect(gga.time == UTCTime(hour: 12, minute: 35, second: 19, nanosecond: 250_000_000))
    #expect(gga.latitude?.degrees == 48 + 7.038 / 60)
    #expect(gga.longitude?.degrees == 11 + 31.0 / 60)
    #expect(gga.quality == .rtkFixed)
    #expect(gga.satellitesUsed == 8)
    #expect(gga.hdop == fixed("0.9"))
    #expect(gga.altitude == fixed("545.4"))
    #expect(gga.geoidSeparation == fixed("46.9"))
    #expect(gga.differentialAge == fixed("1.5"))
    #expect(gga.differentialStation == 123)
  }

  @Test func emptyFieldsAreUnknownNotZero() throws {
    let gga = try decode("GPGGA,,,,,,0,,,,,,,,", GGA.init)
    #expect(gga.time == nil && gga.latitude == nil && gga.longitude == nil)
    #expect(gga.quality == .invalid)
    #expect(gga.satellitesUsed == nil && gga.hdop == nil && gga.altitude == nil && gga.geoidSeparation == nil)
  }

  @Test func southernAndWesternHemispheresAreNegative() throws {
    let gga = try decode("GPGGA,000000,3351.600,S,15112.600,W,1,05,1.0,10.0,M,,M,,", GGA.init)
    #expect(gga.latitude?.degrees == -(33 + 51.6 / 60))
    #expect(gga.longitude?.degrees == -(151 + 12.6 / 60))
  }

  @Test(arguments: [
    ("bad quality", "GPGGA,123519,4807.038,N,01131.000,E,9,08,0.9,545.4,M,46.9,M,,", 6),
    ("letter in time", "GPGGA,12a519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", 1),
    ("minutes above 59", "GPGGA,123519,4867.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", 2),
    ("latitude above 90", "GPGGA,123519,9107.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", 2),
    ("bad hemisphere", "GPGGA,123519,4807.038,X,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", 3),
    ("hemisphere without value", "GPGGA,123519,,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", 3),
    ("wrong altitude unit", "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,F,46.9,M,,", 10),
    ("two decimal points", "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9.1,545.4,M,46.9,M,,", 8),
  ])
  func rejectsInvalidFieldsNamingThem(_ name: String, _ body: String, _ field: Int) throws {
    #expect(throws: NMEAError.invalidField(.gga, field: field)) { try decode(body, GGA.init) }
  }

  @Test func refusesOtherSentenceTypes() throws {
    #expect(throws: NMEAError.wrongType(expected: .gga, found: .rmc)) {
      try decode("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W", GGA.init)
    }
  }
}
