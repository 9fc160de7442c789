/// How fast a capture replays.
public enum ReplaySpeed: Hashable, Sendable, CustomStringConvertible {
  /// At the pace the receiver produced it.
  case realTime
  /// `factor` times faster (2 is twice as fast, 0.5 half as fast).
  case multiplied(by: Double)
  /// As fast as the manager takes the fixes.
  case max

  public var description: String {
    switch self {
    case .realTime: "real time"
    case .multiplied(let factor): "\(factor)×"
    case .max: "as fast as possible"
    }
  }
}
