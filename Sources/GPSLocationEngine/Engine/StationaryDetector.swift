import FoundationEssentials

/// Applies a ``StationaryRule`` to locations in order: pure, on the fixes' own times, so a
/// replay says "still" at the same fixes as the live receiver did.
package struct StationaryDetector: Sendable {
  package let rule: StationaryRule
  /// Where and when the current still period began, if the latest location was still.
  private var anchor: Location?

  package init(rule: StationaryRule) {
    self.rule = rule
  }

  /// The stated accuracy counts twice, and at most this much: a receiver that says 300 m
  /// knows nothing of where it is, let alone whether it moves.
  static let accuracyAllowance = 50.0

  /// Whether the device is standing still at `location`.
  package mutating func update(_ location: Location) -> Bool {
    let speed = location.decisiveSpeed
    let slow = speed < 0 || speed <= rule.maximumSpeed
    guard slow else {
      anchor = nil
      return false
    }
    let accuracy = location.horizontalAccuracy >= 0 ? min(2 * location.horizontalAccuracy, Self.accuracyAllowance) : 0
    guard let anchor,
      location.timestamp >= anchor.timestamp,
      anchor.distance(from: location) <= rule.maximumDrift + accuracy
    else {
      anchor = location
      return false
    }
    return location.timestamp.timeIntervalSince(anchor.timestamp) >= rule.duration
  }

  /// Forgets the still period (the source went away: nothing is known of the time between).
  package mutating func reset() { anchor = nil }
}
