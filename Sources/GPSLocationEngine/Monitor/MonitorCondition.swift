/// What a `Monitor` watches, as `CLMonitor`'s conditions: a circle (`CircularGeographicCondition`)
/// or, beyond Apple's, a polygon. Both are judged with the engine's hysteresis and dwell (see
/// ``Region``), learnt from the receiver's own scatter.
public enum MonitorCondition: Hashable, Sendable, Codable {
  /// Inside `radius` metres of `center`.
  case circle(center: LocationCoordinate2D, radius: Double)
  /// Inside the polygon with these corners (at least three, in order, either way round; not
  /// across the ±180° meridian).
  case polygon(vertices: [LocationCoordinate2D])

  /// The engine's region for this condition.
  package func region(identifier: String) -> Region {
    switch self {
    case .circle(let center, let radius): Region(identifier: identifier, center: center, radius: radius)
    case .polygon(let vertices): Region(identifier: identifier, polygon: vertices)
    }
  }
}

/// A condition's state, as `CLMonitor.Event.State`.
public enum ConditionState: String, Hashable, Sendable, Codable {
  /// Not decided yet: no fix has been good enough, near enough the edge, to say.
  case unknown
  /// The device is inside.
  case satisfied
  /// The device is outside.
  case unsatisfied
  /// The condition is no longer monitored (it could not be, or was removed).
  case unmonitored

  package init(_ state: RegionState) {
    switch state {
    case .unknown: self = .unknown
    case .inside: self = .satisfied
    case .outside: self = .unsatisfied
    }
  }
}

extension RegionState {
  /// The engine's state for a condition's: unknown for `unknown` and `unmonitored`.
  package init(_ state: ConditionState) {
    switch state {
    case .satisfied: self = .inside
    case .unsatisfied: self = .outside
    case .unknown, .unmonitored: self = .unknown
    }
  }
}
