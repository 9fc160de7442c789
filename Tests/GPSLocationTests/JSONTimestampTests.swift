import Foundation
import NMEA
import Plumbing
import Testing

@testable import GPSLocation

/// The JSON output writes timestamps digit by digit; they must read exactly as ISO 8601 does.
@Suite struct JSONTimestampTests {
  @Test func timestampsMatchTheCalendarOnEveryKindOfDay() {
    var seconds: [Double] = [0, -1, -0.0004, 0.0005, 951_782_400, 1_714_550_400.25, 4_102_444_799.999, 1_709_164_800]
    var random = SystemRandomNumberGenerator()
    for _ in 0..<2000 { seconds.append(Double.random(in: -2_000_000_000...7_000_000_000, using: &random)) }
    for value in seconds {
      let date = Date(timeIntervalSince1970: value)
      var writer = JSONWriter()
      writer.beginObject()
      writer.field("t", date)
      writer.endObject()
      #expect(writer.string == "{\"t\":\"\(iso8601(date))\"}", "\(value)")
    }
  }

  @Test func theTextIsISO8601WithMilliseconds() {
    var writer = JSONWriter()
    writer.beginObject()
    writer.field("t", Date(timeIntervalSince1970: 1_714_550_401.25))
    writer.endObject()
    #expect(writer.string == #"{"t":"2024-05-01T08:00:01.250Z"}"#)
  }
}
