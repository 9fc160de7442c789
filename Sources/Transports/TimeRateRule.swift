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
/// - **Ahead**: two of the last three epochs more than ``apart`` above the track (which ends
///   ``aheadGap`` before them), the later further: a slew of about 7.5 ms a second or faster.
///   No late arrival can do that (it can only hide one of the three): at 10 ms a second
///   (`simulate --spoof`) it is said 3 s after the slew starts.
/// - **Behind**: a late arrival looks the same, so it takes longer: over the last
///   ``behindSpan``, the earliest arrival of each second more than ``apart`` below the track,
///   and each second's lower than the one before (a busy machine's delays come and go; a
///   slew only goes one way). At 10 ms a second, about 10 s.
///
/// Once found, the finding lasts while the last second's least delayed epoch stays more than
/// half of ``apart`` from the track on its side (so a jittery line does not say and unsay it), and ends once the time holds
/// still and the track catches up. Live fixes only: a capture's have no arrival; one played
/// into a port faster than it was made runs away too, and is said so, unless each epoch steps
/// by ``step`` or more (a 1 Hz capture played over 1.1 times as fast: gpsfake's way). The time service's own
/// rules (``TimeSampler`` in TimeService) judge where the time is then: a step, or a drift of
/// 100 ms, is not fed until it is back or agreed with.
struct TimeRateRule: Sendable {
  /// How long the track is remembered, nanoseconds.
  static let history: Int64 = 30_000_000_000
  /// Epochs the track must hold before anything is judged against it.
  static let leastHistory = 16
  /// How far an epoch may be from the last for the track to go on, nanoseconds.
  static let step: Int64 = 100_000_000
  /// The least time between two epochs judged, nanoseconds.
  static let shortestStep: Int64 = 20_000_000
  /// How far from the track an epoch must be, nanoseconds.
  static let apart: Int64 = 15_000_000
  /// How long before the epochs judged for a time running ahead the track ends,
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
      forget()
      return false
    }
    // An update of the same epoch is no new reading.
    guard time != lastTime else { return found }
    lastTime = time
    let (seconds, attoseconds) = arrival.components
    let uptime = seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    let offset = time &- uptime
    if let last = readings.last {
      // A gap starts a new track; epochs closer than ``shortestStep`` (read together, or a
      // stream of made-up times) add nothing, so the track stays a few hundred epochs at most.
      guard uptime - last.uptime <= 2_500_000_000 else {
        forget()
        return take(fix)
      }
      guard uptime - last.uptime >= Self.shortestStep else { return found }
      // An epoch a tenth of a second or more from the last is set aside: a slew moves the
      // time gradually (10 ms a second is a hundredth of a second an epoch at 1 Hz). One that
      // the next agrees with is a step (the time service's step rule says those): the track
      // starts afresh from the two. A late arrival is one alone, and a 1 Hz capture played
      // into a port faster than about 1.1 times steps more than that at every epoch.
      if abs(offset - last.offset) >= Self.step {
        defer { aside = (uptime, offset) }
        guard let earlier = aside, abs(offset - earlier.offset) < Self.step else { return found }
        readings.removeAll(keepingCapacity: true)
        readings.append(earlier)
        found = false
      }
    }
    aside = nil
    readings.append((uptime, offset))
    if let start = readings.firstIndex(where: { uptime - $0.uptime < Self.history }), start > 0 { readings.removeFirst(start) }
    // Found, it lasts while the time stays apart from the track on its side: a slew seen
    // through a jittery line is not said and unsaid from one epoch to the next.
    found = found ? staysApart(now: uptime) : runsAhead() || runsBehind(now: uptime)
    return found
  }

  private mutating func forget() {
    readings.removeAll(keepingCapacity: true)
    lastTime = nil
    aside = nil
    found = false
  }

  /// The highest offset of the readings before `end`, when there are enough of them.
  private func track(before end: Int) -> Int64? {
    guard end >= Self.leastHistory else { return nil }
    return readings[..<end].lazy.map(\.offset).max()
  }

  /// Two of the last three epochs above the track as it stood ``aheadGap`` before the earlier
  /// of the two, the later further: a late arrival, which only lowers an epoch, can hide one
  /// of three on a busy machine, never make one.
  private func runsAhead() -> Bool {
    let count = readings.count
    for (earlier, later) in [(count - 2, count - 1), (count - 3, count - 1), (count - 3, count - 2)] where earlier >= 0 {
      guard let end = readings.lastIndex(where: { readings[earlier].uptime - $0.uptime >= Self.aheadGap }),
        let track = track(before: end + 1)
      else { continue }
      let (before, last) = (readings[earlier].offset - track, readings[later].offset - track)
      if before > Self.apart && last > before { return true }
    }
    return false
  }

  /// Whether the last second's least delayed epoch is still more than half of ``apart`` from
  /// the track, on the side it ran to.
  private func staysApart(now: Int64) -> Bool {
    guard let last = readings.last, let recent = readings.firstIndex(where: { now - $0.uptime <= 1_000_000_000 }) else { return false }
    let latest = readings[recent...].lazy.map(\.offset).max()!
    let ahead = readings.lastIndex { last.uptime - $0.uptime >= Self.aheadGap }.flatMap { track(before: $0 + 1) }
    if let ahead, latest - ahead > Self.apart / 2 { return true }
    let behind = readings.firstIndex { now - $0.uptime <= Self.behindSpan }.flatMap { track(before: $0) }
    if let behind, latest < behind - Self.apart / 2 { return true }
    return false
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
