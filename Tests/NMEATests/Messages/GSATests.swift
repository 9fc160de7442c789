import NMEA
import Testing

@Suite struct GSATests {
  @Test(arguments: talkers)
  func readsNMEA3Layout(_ talker: String) throws {
    let gsa = try decode("\(talker)GSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1", GSA.init)
    #expect(gsa.fixMode == .threeD && gsa.selectionMode == UInt8(ascii: "A"))
    #expect(Array(gsa.satellites) == [4, 5, 9, 12, 24])
    #expect(gsa.pdop == fixed("2.5") && gsa.hdop == fixed("1.3") && gsa.vdop == fixed("2.1"))
    #expect(gsa.systemID == nil)
  }

  @Test(arguments: [("1", Constellation.gps), ("2", .glonass), ("3", .galileo), ("4", .beidou), ("5", .qzss), ("6", .navic)])
  func readsHexadecimalSystemIDOfNMEA411(_ id: String, _ constellation: Constellation) throws {
    let gsa = try decode("GNGSA,A,3,80,71,73,79,69,,,,,,,,1.83,1.09,1.47,\(id)", GSA.init)
    #expect(gsa.constellation == constellation)
    #expect(gsa.satellites.count == 5)
  }

  @Test func noFixHasNoSatellites() throws {
    let gsa = try decode("GPGSA,A,1,,,,,,,,,,,,,,,", GSA.init)
    #expect(gsa.fixMode == FixMode.none && gsa.satellites.isEmpty && gsa.pdop == nil)
  }

  @Test func talkerGivesConstellationWithoutSystemID() throws {
    #expect(try decode("GLGSA,A,3,65,66,,,,,,,,,,,2.5,1.3,2.1", GSA.init).constellation == .glonass)
    #expect(try decode("GNGSA,A,3,65,66,,,,,,,,,,,2.5,1.3,2.1", GSA.init).constellation == nil)
  }

  @Test func rejectsBadFixMode() {
    #expect(throws: NMEAError.invalidField(.gsa, field: 2)) { try decode("GPGSA,A,4,,,,,,,,,,,,,,,", GSA.init) }
  }
}
