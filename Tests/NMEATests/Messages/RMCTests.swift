import NMEA
import Testing

@Suite struct RMCTests {
  @Test(arguments: talkers)
  func readsNMEA2Layout(_ talker: String) throws {
    let rmc = try decode("\(talker)RMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W", RMC.init)
    #expect(rmc.talker.description == talker)
    #expect(rmc.isValid == true)
    #expect(rmc.speedKnots == fixed("022.4") && rmc.course == fixed("084.4"))
    #expect(rmc.date == UTCDate(year: 1994, month: 3, day: 23))
    #expect(rmc.magneticVariation == fixed("-003.1"))
    #expect(rmc.mode == nil && rmc.navigationStatus == nil)
  }

  @Test func readsModeOfNMEA23AndNavigationStatusOfNMEA41() throws {
    let rmc = try decode("GNRMC,001031.00,A,4404.13993,N,12118.86023,W,0.146,,100117,,,D,V", RMC.init)
    #expect(rmc.mode == .dgps)
    #expect(rmc.navigationStatus == UInt8(ascii: "V"))
    #expect(rmc.course == nil && rmc.magneticVariation == nil)
    #expect(rmc.date == UTCDate(year: 2017, month: 1, day: 10))
  }

  /// A Motorola T805 leaves out the variation's direction and writes its mode there, as the
  /// last field: the mode is read, the unsigned variation is not.
  @Test(arguments: [("A", FixQuality.gps), ("N", FixQuality.invalid), ("D", FixQuality.dgps)])
  func readsAModeWrittenInPlaceOfTheVariationsDirection(_ letter: String, _ mode: FixQuality) throws {
    let rmc = try decode("GPRMC,212614.879,A,4839.9488,N,00214.8863,E,0.56,344.41,181207,0,\(letter)", RMC.init)
    #expect(rmc.mode == mode && rmc.magneticVariation == nil && rmc.speedKnots == fixed("0.56"))
  }

  @Test func anEastVariationAsTheLastFieldIsADirection() throws {
    let rmc = try decode("GPRMC,212614.879,A,4839.9488,N,00214.8863,E,0.56,344.41,181207,3.1,E", RMC.init)
    #expect(rmc.magneticVariation == fixed("3.1") && rmc.mode == nil)
  }

  @Test func voidStatusWithEmptyPosition() throws {
    let rmc = try decode("GPRMC,235959.00,V,,,,,,,311299,,,N", RMC.init)
    #expect(rmc.isValid == false && rmc.latitude == nil && rmc.mode == .invalid)
    #expect(rmc.date == UTCDate(year: 1999, month: 12, day: 31))
  }

  @Test(arguments: [
    ("bad status", "GPRMC,123519,X,,,,,,,230394,,", 2), ("31 February", "GPRMC,123519,A,,,,,,,310294,,", 9),
    ("bad mode", "GPRMC,123519,A,,,,,,,230394,,,Q", 12),
  ])
  func rejectsInvalidFields(_ name: String, _ body: String, _ field: Int) {
    #expect(throws: NMEAError.invalidField(.rmc, field: field)) { try decode(body, RMC.init) }
  }
}
