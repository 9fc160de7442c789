import FoundationEssentials

/// A stay whose arrival was reported and whose departure was not yet: what a `Monitor` keeps
/// across a restart, so that the arrival is not said again and the departure, when it comes,
/// has the arrival's date. (Not in upstream.)
///
/// Resumed with ``LocationManager/Command/startMonitoringVisitsResuming(_:)``, the stay goes on
/// if the next fix is within the visit radius and no more than
/// ``LocationEngine/Configuration/visitMaximumGap`` after ``lastSeen`` (the program was down
/// while you stayed); otherwise its departure is reported at once, dated ``lastSeen``: the
/// last fix of the stay known before the restart.
public struct VisitInProgress: Hashable, Sendable {
  /// The arrival as it was reported (its departure date `distantFuture`).
  public var arrival: Visit
  /// The time of the last fix of the stay seen before the restart.
  public var lastSeen: Date
  /// How many fixes the stay's centre is the mean of: it keeps that weight as the stay goes on.
  public var fixes: Int

  public init(arrival: Visit, lastSeen: Date, fixes: Int) {
    self.arrival = arrival
    self.lastSeen = lastSeen
    self.fixes = fixes
  }
}
