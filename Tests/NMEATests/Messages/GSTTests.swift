import NMEA
import Testing

@Suite struct GSTTests {
  @Test(arguments: talkers)
  func readsErrorEstimates(_ talker: String) throws {
    let gst = try decode("\(talker)GST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031", GST.init)
    #expect(gst.time == UTCTime(hour: 17, minute: 28, second: 14))
    #expect(gst.rangeRMS == fixed("0.006") && gst.semiMajorSigma == fixed("0.023") && gst.orientation == fixed("273.6"))
    #expect(gst.latitudeSigma == fixed("0.023") && gst.longitudeSigma == fixed("0.020") && gst.altitudeSigma == fixed("0.031"))
  }

  @Test func emptyEstimatesBeforeAFix() throws {
    let gst = try decode("GPGST,172814.0,,,,,,,", GST.init)
    #expect(gst.latitudeSigma == nil && gst.altitudeSigma == nil)
  }
}
