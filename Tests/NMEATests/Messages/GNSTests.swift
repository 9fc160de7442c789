import NMEA
import Testing

@Suite struct GNSTests {
  @Test(arguments: talkers)
  func readsMultiConstellationFix(_ talker: String) throws {
    let gns = try decode("\(talker)GNS,122310.2,3722.425671,N,12258.856215,W,DAAA,14,0.9,1005.543,6.5,,,V", GNS.init)
    #expect(gns.latitude?.degrees == 37 + 22.425671 / 60)
    #expect(gns.mode == .dgps)
    #expect(gns.satellitesUsed == 14 && gns.altitude == fixed("1005.543") && gns.geoidSeparation == fixed("6.5"))
    #expect(gns.navigationStatus == UInt8(ascii: "V"))
  }

  @Test(arguments: [("NNNN", FixQuality.invalid), ("ANNN", .gps), ("RFAN", .rtkFixed), ("FANN", .rtkFloat), ("E", .deadReckoning)])
  func bestModeWins(_ modes: String, _ quality: FixQuality) throws {
    #expect(try decode("GNGNS,122310.2,,,,,\(modes),00,,,,,", GNS.init).mode == quality)
  }

  @Test func rejectsUnknownModeLetter() {
    #expect(throws: NMEAError.invalidField(.gns, field: 6)) { try decode("GNGNS,122310.2,,,,,AZ,00,,,,,", GNS.init) }
  }
}
