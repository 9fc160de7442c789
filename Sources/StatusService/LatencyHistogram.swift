/// The time from an epoch's last byte read to its report, counted in Prometheus's cumulative
/// buckets: bounded, whatever the run's length.
package struct LatencyHistogram: Codable, Sendable, Equatable {
  /// Upper bounds, seconds: 100 µs to a quarter of a second.
  package static let bounds: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25]

  /// Observations at or below each bound (not cumulative: ``cumulative`` adds them up).
  package var counts = [Int](repeating: 0, count: bounds.count)
  package var count = 0
  package var sum = 0.0

  package init() {}

  package mutating func observe(_ seconds: Double) {
    guard seconds.isFinite, seconds >= 0 else { return }
    count += 1
    sum += seconds
    if let index = Self.bounds.firstIndex(where: { seconds <= $0 }) { counts[index] += 1 }
  }

  /// Each bound with the observations at or below it, as Prometheus's `le` buckets count.
  package var cumulative: [(bound: Double, count: Int)] {
    var total = 0
    return zip(Self.bounds, counts).map { bound, count in
      total += count
      return (bound, total)
    }
  }
}
