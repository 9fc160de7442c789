import NMEA

/// Spaces fixes out by their own times.
struct Pacer<C: Clock> where C.Duration == Duration {
  let speed: ReplaySpeed
  let clock: C
  var start: C.Instant?
  var first: Int64?
  var lastDay: Int64 = 0
  var lastTime: Int64 = -1

  /// Sleeps until `fix` is due; `false` when the task was cancelled.
  mutating func wait(for fix: Fix) async -> Bool {
    let factor: Double
    switch speed {
    case .max:
      return !Task.isCancelled
    case .realTime: factor = 1
    case .multiplied(let value): factor = value > 0 ? value : 1
    }
    let nanoseconds = position(of: fix)
    guard let start, let first else {
      self.start = clock.now
      self.first = nanoseconds
      return !Task.isCancelled
    }
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
