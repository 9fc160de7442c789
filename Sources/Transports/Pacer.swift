import NMEA

/// Spaces fixes out by their own times.
///
/// A jump in the receiver's time — forward by more than ``longestGap`` (a capture spliced from
/// two days, a receiver that set its clock) or backwards at all — is a discontinuity, not a
/// wait: it is replayed as one ordinary epoch interval, and pacing carries on from there. (A
/// `--speed 1` replay of a capture with a ten-hour jump would otherwise stall ten hours.)
package struct Pacer<C: Clock> where C.Duration == Duration {
  /// Forward steps longer than this are jumps, nanoseconds: longer than any receiver's epoch
  /// interval or a short outage, which are replayed as they happened.
  package static var longestGap: Int64 { 60_000_000_000 }

  let speed: ReplaySpeed
  let clock: C
  var start: C.Instant?
  /// The timeline position that `start` stands for, moved on over each jump.
  var first: Int64 = 0
  var last: Int64?
  /// The latest ordinary step between epochs: what a jump is replayed as.
  var interval: Int64 = 1_000_000_000
  var lastDay: Int64 = 0
  var lastTime: Int64 = -1

  package init(speed: ReplaySpeed, clock: C) {
    self.speed = speed
    self.clock = clock
  }

  /// Sleeps until `fix` is due; `false` when the task was cancelled.
  package mutating func wait(for fix: Fix) async -> Bool {
    let factor: Double
    switch speed {
    case .max:
      return !Task.isCancelled
    case .realTime: factor = 1
    case .multiplied(let value): factor = value > 0 ? value : 1
    }
    let nanoseconds = position(of: fix)
    guard let start, let last else {
      self.start = clock.now
      first = nanoseconds
      last = nanoseconds
      return !Task.isCancelled
    }
    let step = nanoseconds - last
    if step < 0 || step > Self.longestGap {
      first += step - interval
    } else if step > 0 {
      interval = step
    }
    self.last = nanoseconds
    let offset = Double(nanoseconds - first) / factor
    guard offset > 0 else { return !Task.isCancelled }
    let due = start.advanced(by: .nanoseconds(Int64(offset)))
    do {
      try await clock.sleep(until: due, tolerance: nil)
    } catch {
      return false
    }
    return true
  }

  /// Nanoseconds on one timeline: the timestamp when dated, else the time of day with a day
  /// added each time it wraps past midnight.
  mutating func position(of fix: Fix) -> Int64 {
    if let stamp = fix.timestamp { return stamp.nanosecondsSince1970 }
    let time = fix.time.nanosecondsSinceMidnight
    if lastTime >= 0, time + 43_200_000_000_000 < lastTime { lastDay += 1 }
    lastTime = time
    return lastDay * 86_400_000_000_000 + time
  }
}
