import GPSD
import NMEA
import Testing

/// A served TPV of a receiver that states no speed has gpsd's: the distance from the fix before
/// over the time between; a receiver's own speed is served as it said it.
struct ServedSpeedTests {
  /// A 3D fix at 12:00:`second` UTC on 2024-05-01, `north` metres north of 47° N 8° E.
  static func fix(_ second: Int, north: Double, speed: Double? = nil) -> Fix {
    let time = UTCTime(hour: 12, minute: 0, second: second)
    var fix = Fix(time: time, timestamp: UTCTimestamp(date: UTCDate(year: 2024, month: 5, day: 1), time: time))
    fix.mode = .threeD
    fix.quality = .gps
    fix.latitude = 47 + north / 111_170.9  // the ellipsoid's metres in a degree of latitude at 47°
    fix.longitude = 8
    fix.altitude = 400
    fix.speed = speed
    return fix
  }

  static func tpv(_ reports: [GPSDReport]) -> GPSDReport.TPV? {
    reports.compactMap { report -> GPSDReport.TPV? in if case .tpv(let tpv) = report { tpv } else { nil } }.first
  }

  @Test func aReceiverThatStatesNoSpeedIsServedTheSpeedBetweenItsPositions() {
    var model = GPSDErrorModel()
    #expect(Self.tpv(model.reports(for: Self.fix(0, north: 0), device: "/dev/ttyUSB0"))?.speed == nil)
    let speed = Self.tpv(model.reports(for: Self.fix(2, north: 7), device: "/dev/ttyUSB0"))?.speed
    #expect(abs((speed ?? -1) - 3.5) < 0.001)
  }

  @Test func aStatedSpeedIsServedAsStated() {
    var model = GPSDErrorModel()
    _ = model.reports(for: Self.fix(0, north: 0), device: "/dev/ttyUSB0")
    #expect(Self.tpv(model.reports(for: Self.fix(1, north: 7, speed: 2), device: "/dev/ttyUSB0"))?.speed == 2)
  }
}
