import NMEA
import Testing
import TimeService

/// Which fixes become time samples: valid, dated, live, consistent, one a second.
struct TimeSamplerTests {
  static let day = UTCDate(year: 2026, month: 11, day: 26)

  /// A fix with a position at `second` (plus `fraction`) of the day, that began to arrive
  /// `delay` seconds later by the system clock.
  static func fix(
    _ second: Int, fraction: Double = 0, delay: Double = 0.150, dated: Bool = true, valid: Bool = true, live: Bool = true
  ) -> Fix {
    let time = UTCTime(nanosecondsSinceMidnight: Int64(second) * 1_000_000_000 + Int64(fraction * 1e9))
    var fix = Fix(time: time, timestamp: dated ? UTCTimestamp(date: day, time: time) : nil)
    if valid {
      fix.mode = .threeD
      fix.quality = .gps
      fix.latitude = 52
      fix.longitude = 13
    }
    if live {
      let arrival = UTCTimestamp(date: day, time: time).nanosecondsSince1970 + Int64((delay * 1e9).rounded())
      fix.arrival = UTCTimestamp(nanosecondsSince1970: arrival)
      // The raw clock: the same moment, counted from some boot long ago.
      fix.arrivalUptime =
        .nanoseconds(arrival - UTCTimestamp(date: day, time: UTCTime(nanosecondsSinceMidnight: 0)).nanosecondsSince1970)
        + .seconds(86_400)
    }
    return fix
  }

  static func samples(_ fixes: [Fix]) -> [TimeSample] {
    var sampler = TimeSampler()
    return fixes.compactMap { sampler.sample($0) }
  }

  @Test func samplesBeginAfterConsistentEpochsAndCarryTheDelay() {
    let samples = Self.samples((0..<6).map { Self.fix(100 + $0) })
    #expect(samples.count == 6 - TimeSampler.consistentEpochsNeeded)
    #expect(samples.allSatisfy { abs($0.offset + 0.150) < 1e-9 && $0.kind == .serial })
    #expect(samples.first?.reference == Self.fix(100 + TimeSampler.consistentEpochsNeeded).timestamp)
  }

  @Test func aReceiverWithoutAFixOrADateOrALiveLineGivesNothing() {
    #expect(Self.samples((0..<10).map { Self.fix(100 + $0, valid: false) }).isEmpty)
    #expect(Self.samples((0..<10).map { Self.fix(100 + $0, dated: false) }).isEmpty)
    #expect(Self.samples((0..<10).map { Self.fix(100 + $0, live: false) }).isEmpty)
  }

  @Test func atMostOneSampleASecondFromTheFirstEpochOfEach() {
    let fixes = (0..<50).map { Self.fix(100 + $0 / 10, fraction: Double($0 % 10) / 10) }
    let samples = Self.samples(fixes)
    #expect(samples.count == 5 - 1)
    #expect(samples.allSatisfy { $0.reference.nanosecondsSince1970 % 1_000_000_000 == 0 })
  }

  @Test func anUpdatedFixForTheSameTimeIsNotASecondSample() {
    let fixes = (0..<6).flatMap { [Self.fix(100 + $0), Self.fix(100 + $0, delay: 0.4)] }
    let samples = Self.samples(fixes)
    #expect(samples.count == 3)
    #expect(samples.allSatisfy { abs($0.offset + 0.150) < 1e-9 })
  }

  @Test func theDelayReportGivesChronysOffsetOption() {
    var meter = OffsetMeter()
    for delay in [0.149, 0.151, 0.150, 0.152, 0.148] { meter.add(delay: delay) }
    let report = meter.report!
    #expect(abs(report.delay - 0.150) < 1e-9)
    #expect(report.chronyLine(socket: "/run/chrony.gps.sock") == "refclock SOCK /run/chrony.gps.sock refid NMEA offset 0.150 delay 0.006")
    #expect(report.summary == "NMEA time arrives 150.0 ms after the second (jitter 1.5 ms, 5 samples, against the system clock)")
  }
}
