import NMEA
import Testing
import Transports

/// Replay pacing: by the fixes' own times, with jumps in them replayed as one epoch.
struct PacerTests {
  /// A clock whose sleeps end at once, having moved its time to their deadline: the
  /// deadlines are what the pacer decided.
  final class ImmediateClock: Clock, @unchecked Sendable {
    typealias Instant = ContinuousClock.Instant
    let origin = ContinuousClock.now
    var now: Instant
    var minimumResolution: Duration { .nanoseconds(1) }
    init() { now = origin }
    func sleep(until deadline: Instant, tolerance: Duration?) async throws { now = max(now, deadline) }
    var elapsed: Double {
      let (seconds, attoseconds) = (now - origin).components
      return Double(seconds) + Double(attoseconds) / 1e18
    }
  }

  static func fix(_ second: Int64) -> Fix {
    let day = UTCDate(year: 2024, month: 5, day: 1)
    let time = UTCTime(nanosecondsSinceMidnight: 0)
    return Fix(
      time: time,
      timestamp: UTCTimestamp(nanosecondsSince1970: UTCTimestamp(date: day, time: time).nanosecondsSince1970 + second * 1_000_000_000))
  }

  /// When each fix was let go, seconds after the first, at `speed`.
  static func releases(_ seconds: [Int64], speed: ReplaySpeed = .realTime) async -> [Double] {
    let clock = ImmediateClock()
    var pacer = Pacer(speed: speed, clock: clock)
    var times: [Double] = []
    for second in seconds {
      _ = await pacer.wait(for: fix(second))
      times.append(clock.elapsed)
    }
    return times
  }

  @Test func fixesAreReleasedByTheirOwnTimes() async {
    #expect(await Self.releases([0, 1, 2, 4]) == [0, 1, 2, 4])
    #expect(await Self.releases([0, 1, 2, 4], speed: .multiplied(by: 2)) == [0, 0.5, 1, 2])
  }

  @Test func aTenHourJumpIsOneEpochNotTenHours() async {
    #expect(await Self.releases([0, 1, 2, 36_002, 36_003]) == [0, 1, 2, 3, 4])
  }

  @Test func timeGoingBackwardsIsOneEpochNotAStall() async {
    #expect(await Self.releases([100, 101, 102, 50, 51]) == [0, 1, 2, 3, 4])
  }

  @Test func aShortOutageIsReplayedAsItHappened() async {
    #expect(await Self.releases([0, 1, 31, 32]) == [0, 1, 31, 32])
  }
}
