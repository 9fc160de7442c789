import GPSD
import GPSLocationEngine
import Geomagnetism
import NMEA
import Testing

/// Where a receiver gives no magnetic variation (most leave RMC's empty), the model's is
/// used: every heading gets a magnetic heading, and a served TPV gets `magvar` and `magtrack`,
/// as gpsd fills them in. Outside the model's years nothing is made up.
struct MagneticVariationTests {
  /// A moving fix at Zurich on `date`, course 90°, with no variation from the receiver.
  static func fix(on date: UTCDate) -> Fix {
    let time = UTCTime(nanosecondsSinceMidnight: 12 * 3_600_000_000_000)
    var fix = Fix(time: time, timestamp: UTCTimestamp(date: date, time: time))
    fix.mode = .threeD
    fix.quality = .gps
    fix.latitude = 47.37
    fix.longitude = 8.54
    fix.altitude = 410
    fix.speed = 20
    fix.course = 90
    return fix
  }

  static let november2026 = UTCDate(year: 2026, month: 11, day: 25)
  static var declination: Double { WorldMagneticModel.wmm2025.declination(for: fix(on: november2026))! }

  @Test func aHeadingFromTheCourseGetsTheModelsMagneticHeading() {
    var engine = LocationEngine()
    engine.startUpdatingHeading()
    let headings = engine.handle(Self.fix(on: Self.november2026)).compactMap { action -> Heading? in
      if case .didUpdateHeading(let heading) = action { heading } else { nil }
    }
    let heading = headings.first
    #expect(heading != nil)
    // Zurich's declination is about 3.7° east: magnetic north lies east of true north.
    #expect(Self.declination > 3 && Self.declination < 4.5)
    #expect(abs((heading?.magneticHeading ?? -1) - (90 - Self.declination)) < 1e-9)
  }

  @Test func aServedTPVGetsMagvarAndMagtrackAsGPSDFillsThemIn() throws {
    var model = GPSDErrorModel()
    let reports = model.reports(for: Self.fix(on: Self.november2026), device: "/dev/ttyACM0")
    let tpv = try #require(reports.compactMap { report -> GPSDReport.TPV? in if case .tpv(let tpv) = report { tpv } else { nil } }.first)
    #expect(abs((tpv.magneticVariation ?? 0) - Self.declination) < 1e-9)
    #expect(abs((tpv.magneticCourse ?? 0) - (90 + Self.declination)) < 1e-9)
  }

  @Test func outsideTheModelsYearsNothingIsMadeUp() throws {
    let old = Self.fix(on: UTCDate(year: 2024, month: 5, day: 1))
    #expect(WorldMagneticModel.wmm2025.declination(for: old) == nil)
    var engine = LocationEngine()
    engine.startUpdatingHeading()
    let heading = engine.handle(old).compactMap { action -> Heading? in
      if case .didUpdateHeading(let heading) = action { heading } else { nil }
    }.first
    #expect(heading?.magneticHeading == -1)
  }
}
