/// The times of the locations given over the last minute, to tell a receiver whose clock goes
/// back over seconds it has already placed (a second location for a time: not given) from one
/// that moves its epochs to another phase of the second (53.71, then 53.408, 54.408: times
/// not given yet, each a location).
///
/// Sorted, seconds since 1970; the oldest are dropped in batches, so each location costs an
/// append and, now and then, one move of the window's times.
struct GivenTimes: Sendable {
  /// How far back a time is remembered, seconds.
  static let window: Double = 60
  /// Two times this close are one (locations are written to the millisecond).
  static let tolerance: Double = 0.0005

  private var times: [Double] = []
  /// How many of `times` have left the window and wait to be dropped.
  private var start = 0

  /// The latest time given, if any is remembered.
  var newest: Double? { times.last }

  /// Whether a location was given within ``tolerance`` of `time`, in the window.
  func contains(_ time: Double) -> Bool {
    var low = start, high = times.count
    while low < high {
      let middle = (low + high) / 2
      if times[middle] < time - Self.tolerance { low = middle + 1 } else { high = middle }
    }
    return low < times.count && times[low] <= time + Self.tolerance
  }

  /// Notes a location given at `time`.
  mutating func insert(_ time: Double) {
    if let last = times.last, time < last {
      var index = times.count
      while index > start, times[index - 1] > time { index -= 1 }
      times.insert(time, at: index)
    } else {
      times.append(time)
    }
    let newest = times[times.count - 1]
    while start < times.count, times[start] < newest - Self.window { start += 1 }
    if start >= 256, start * 2 >= times.count {
      times.removeFirst(start)
      start = 0
    }
  }

  mutating func removeAll() {
    times.removeAll(keepingCapacity: true)
    start = 0
  }
}
