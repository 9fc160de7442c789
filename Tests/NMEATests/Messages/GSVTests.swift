import NMEA
import Testing

@Suite struct GSVTests {
  @Test(arguments: talkers)
  func readsFourSatellites(_ talker: String) throws {
    let gsv = try decode("\(talker)GSV,3,1,11,03,03,111,00,04,15,270,00,06,01,010,00,13,06,292,00", GSV.init)
    #expect(gsv.messageCount == 3 && gsv.messageNumber == 1 && gsv.satellitesInView == 11 && !gsv.isLast)
    #expect(gsv.satellites.map(\.number) == [3, 4, 6, 13])
    #expect(gsv.satellites[1].elevation == 15 && gsv.satellites[1].azimuth == 270 && gsv.satellites[1].snr == 0)
    #expect(gsv.signalID == nil)
  }

  @Test func lastSentenceWithFewerSatellitesAndAnUntrackedOne() throws {
    let gsv = try decode("GPGSV,3,3,11,22,42,067,42,24,14,311,,27,05,244,00", GSV.init)
    #expect(gsv.isLast && gsv.satellites.count == 3 && gsv.satellites[1].snr == nil)
  }

  @Test func readsSignalIDOfNMEA411() throws {
    let gsv = try decode("GAGSV,2,2,06,27,41,130,44,30,65,221,46,7", GSV.init)
    #expect(gsv.satellites.count == 2 && gsv.signalID == 7)
  }

  @Test func emptyPaddingBlocksAreSkipped() throws {
    let gsv = try decode("GPGSV,1,1,01,07,45,120,38,,,,,,,,,,,,", GSV.init)
    #expect(gsv.satellites.map(\.number) == [7])
  }

  @Test func noSatellitesInView() throws {
    let gsv = try decode("GPGSV,1,1,00", GSV.init)
    #expect(gsv.satellites.isEmpty && gsv.satellitesInView == 0)
  }

  @Test(arguments: ["GPGSV,0,1,00", "GPGSV,2,3,00", "GPGSV,,1,00"])
  func rejectsImpossibleNumbering(_ body: String) {
    #expect(throws: NMEAError.self) { try decode(body, GSV.init) }
  }
}
