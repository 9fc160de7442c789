import NMEA
import Testing

@Suite struct HDTTests {
  @Test(arguments: talkers + ["HE", "HC", "II"])
  func readsTrueHeading(_ talker: String) throws {
    #expect(try decode("\(talker)HDT,274.07,T", HDT.init).heading == fixed("274.07"))
  }

  @Test func emptyHeading() throws {
    #expect(try decode("HEHDT,,T", HDT.init).heading == nil)
  }

  @Test func rejectsMagneticUnit() {
    #expect(throws: NMEAError.invalidField(.hdt, field: 2)) { try decode("HEHDT,274.07,M", HDT.init) }
  }
}
