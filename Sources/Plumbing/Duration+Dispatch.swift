import Dispatch

extension Duration {
  /// The duration for a Dispatch deadline, in whole nanoseconds.
  package var dispatchInterval: DispatchTimeInterval {
    let (seconds, attoseconds) = components
    // (Beyond a century a wait is as good as forever.)
    return .nanoseconds(Int(min(max(seconds, 0), 3_155_760_000)) * 1_000_000_000 + Int(max(attoseconds, 0) / 1_000_000_000))
  }
}
