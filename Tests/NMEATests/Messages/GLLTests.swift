import NMEA
import Testing

@Suite struct GLLTests {
  @Test(arguments: talkers)
  func readsPositionTimeAndStatus(_ talker: String) throws {
    let gll = try decode("\(talker)GLL,4916.45,N,12311.12,W,225444,A,A", GLL.init)
    #expect(gll.latitude?.degrees == 49 + 16.45 / 60 && gll.longitude?.degrees == -(123 + 11.12 / 60))
    #expect(gll.time == UTCTime(hour: 22, minute: 54, second: 44) && gll.isValid == true && gll.mode == .gps)
  }

  @Test func readsNMEA1LayoutWithoutTimeOrStatus() throws {
    let gll = try decode("GPGLL,4916.45,N,12311.12,W", GLL.init)
    #expect(gll.time == nil && gll.isValid == nil)
  }
}
