import NMEA
import Testing

@Suite struct THSTests {
  @Test(arguments: talkers + ["HE", "II"])
  func readsHeadingAndMode(_ talker: String) throws {
    let ths = try decode("\(talker)THS,77.52,E", THS.init)
    #expect(ths.heading == fixed("77.52") && ths.mode == UInt8(ascii: "E") && ths.isValid)
  }

  @Test func notValidModeMeansNoHeading() throws {
    #expect(try decode("GPTHS,77.52,V", THS.init).isValid == false)
    #expect(try decode("GPTHS,,A", THS.init).isValid == false)
  }
}
