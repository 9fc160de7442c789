import NMEA
import Testing

/// A ``Fix`` keeps its fields in a shared box (copy-on-write), yet behaves as the plain value it
/// was: a copy changed leaves the original alone, and it prints as its fields.
@Suite struct FixValueTests {
  static let fix = Fix(
    time: UTCTime(nanosecondsSinceMidnight: 3_600_000_000_000), mode: .threeD, quality: .gps, latitude: 47.5, longitude: 8.5)

  @Test func aChangedCopyLeavesTheOriginalAlone() {
    let original = Self.fix
    var copy = original
    #expect(copy == original)
    copy.latitude = 48
    copy.satellites.append(Fix.Satellite(constellation: .gps, number: 5))
    #expect(original.latitude == 47.5 && original.satellites.isEmpty)
    #expect(copy.latitude == 48 && copy.satellites.count == 1)
    #expect(copy != original)
    copy.latitude = 47.5
    copy.satellites = []
    #expect(copy == original && copy.hashValue == original.hashValue)
  }

  @Test func aFixPrintsAsItsFields() {
    let printed = String(describing: Self.fix)
    #expect(printed.hasPrefix("Fix(time: "), "\(printed)")
    #expect(printed.contains("latitude: Optional(47.5)"), "\(printed)")
  }
}
