import NMEA

/// Evidence of spoofing in a live receiver's time: a spoofer that moves its victim's clock
/// slews it, and the receiver's time then runs away from this machine's raw clock.
///
/// Each epoch's time (the fix's) less when its first sentence arrived by the raw clock
/// (``Fix/arrivalUptime``: `CLOCK_MONOTONIC_RAW`, which no time service slews) is its
/// *offset*: constant while the two run together (a quartz oscillator is off by tens of
/// millionths). An arrival can only be late, never early, so a busy machine can only lower an
/// offset; the *track* is the highest offset of the epochs before those judged (up to
/// ``history`` back, at least ``leastHistory`` of them).
/// - **Ahead**: the last two epochs more than ``apart`` above the track (which ends
///   ``aheadGap`` before them), the later further.
///   No late arrival can do that: at 10 ms a second (`simulate --spoof`) it is said 3 s after
///   the slew starts.
/// - **Behind**: a late arrival looks the same, so it takes longer: over the last
///   ``behindSpan``, the earliest arrival of each second more than ``apart`` below the track,
///   and each second's lower than the one before (a busy machine's delays come and go; a
///   slew only goes one way). At 10 ms a second, about 9 s.
///
/// Live fixes only: a capture's have no arrival. A finding lasts while the time runs away;
/// once it holds still, the track catches up and the finding ends. The time service's own
/// rules (``TimeSampler`` in TimeService) judge where the time is then: a step, or a drift of
/// 100 ms, is not fed until it is back or agreed with.
struct TimeRateRule: Sendable {
  /// How long the track is remembered, nanoseconds.
  static let history: Int64 = 30_000_000_000
  /// Epochs the track must hold before anything is judged against it.
  static let leastHistory = 16
  /// How far an epoch may be from the last for the track to go on, nanoseconds.
  static let step: Int64 = 100_000_000
  /// How far from the track an epoch must be, nanoseconds.
  static let apart: Int64 = 15_000_000
  /// How long before the two epochs judged for a time running ahead the track ends,
  /// nanoseconds: a slew has moved them that much further from it.
  static let aheadGap: Int64 = 2_000_000_000
  /// How much of the latest time is judged for a time running behind, nanoseconds.
  static let behindSpan: Int64 = 8_000_000_000

  /// Each epoch's arrival by the raw clock and its offset, nanoseconds, oldest first.
  private var readings: [(uptime: Int64, offset: Int64)] = []
  private var lastTime: Int64?
  /// An epoch too far from the last to join the track, until the next says whether it stepped.
  private var aside: (uptime: Int64, offset: Int64)?
  private var found = false

  /// Takes the next fix; whether the receiver's time is running away now.
  mutating func take(_ fix: Fix) -> Bool {
    guard fix.hasPosition, let time = fix.timestamp?.nanosecondsSince1970, let arrival = fix.arrivalUptime else {
      readings.removeAll(keepingCapacity: true)
      lastTime = nil
      aside = nil
      found = false
      return false
    }
    // An update of the same epoch is no new reading.
    guard time != lastTime else { return found }
    lastTime = time
    let (seconds, attoseconds) = arrival.components
    let uptime = seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    let offset = time &- uptime
    // A gap starts a new track. An epoch a tenth of a second or more from the last is set
    // aside: a slew moves the time gradually (10 ms a second is a hundredth of a second an
    // epoch at 1 Hz). One that the next agrees with is a step (the time service's step rule
    // says those): the track starts afresh from the two. A late arrival is one alone, and a
    // capture played into a port faster than it was made (gpsfake) steps at every epoch, so
    // it never makes a track.
    if let last = readings.last, uptime - last.uptime > 2_500_000_000 || uptime <= last.uptime {
      readings.removeAll(keepingCapacity: true)
      aside = nil
    }
    if let last = readings.last, abs(offset - last.offset) >= Self.step {
      defer { aside = (uptime, offset) }
      guard let earlier = aside, abs(offset - earlier.offset) < Self.step else { return found }
      readings = [earlier]
    }
    aside = nil
    readings.append((uptime, offset))
    if let start = readings.firstIndex(where: { uptime - $0.uptime < Self.history }), start > 0 { readings.removeFirst(start) }
    found = runsAhead() || runsBehind(now: uptime)
    return found
  }

  /// The highest offset of the readings before `end`, when there are enough of them.
  private func track(before end: Int) -> Int64? {
    guard end >= Self.leastHistory else { return nil }
    return readings[..<end].lazy.map(\.offset).max()
  }

  private func runsAhead() -> Bool {
    let count = readings.count
    guard count >= 2, let end = readings.lastIndex(where: { readings[count - 2].uptime - $0.uptime >= Self.aheadGap }),
      let track = track(before: end + 1)
    else { return false }
    let (before, last) = (readings[count - 2].offset - track, readings[count - 1].offset - track)
    return before > Self.apart && last > before
  }

  private func runsBehind(now: Int64) -> Bool {
    guard let split = readings.firstIndex(where: { now - $0.uptime <= Self.behindSpan }), let track = track(before: split) else {
      return false
    }
    // The earliest arrival (highest offset) of each second since.
    var seconds = 0
    var previous: Int64?
    var highest = Int64.min
    var second = readings[split].uptime / 1_000_000_000
    for reading in readings[split...] {
      let its = reading.uptime / 1_000_000_000
      if its != second {
        guard highest < track - Self.apart, previous.map({ highest < $0 }) ?? true else { return false }
        (previous, highest, second, seconds) = (highest, Int64.min, its, seconds + 1)
      }
      highest = max(highest, reading.offset)
    }
    guard highest < track - Self.apart, previous.map({ highest < $0 }) ?? true else { return false }
    return seconds + 1 >= 7
  }
}
