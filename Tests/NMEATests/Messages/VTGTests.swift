import NMEA
import Testing

@Suite struct VTGTests {
  @Test(arguments: talkers)
  func readsUnitLetteredLayout(_ talker: String) throws {
    let vtg = try decode("\(talker)VTG,054.7,T,034.4,M,005.5,N,010.2,K,A", VTG.init)
    #expect(vtg.course == fixed("054.7") && vtg.magneticCourse == fixed("034.4"))
    #expect(vtg.speedKnots == fixed("005.5") && vtg.speedKilometresPerHour == fixed("010.2") && vtg.mode == .gps)
  }

  @Test func readsPreNMEA2Layout() throws {
    let vtg = try decode("GPVTG,054.7,034.4,005.5,010.2", VTG.init)
    #expect(vtg.course == fixed("054.7") && vtg.speedKilometresPerHour == fixed("010.2") && vtg.mode == nil)
  }

  @Test func emptyCourseWhenStationary() throws {
    let vtg = try decode("GNVTG,,T,,M,0.011,N,0.021,K,A", VTG.init)
    #expect(vtg.course == nil && vtg.speedKnots == fixed("0.011"))
  }
}
