extension MonitorEvent {
  /// The event in `LocationManager`'s words, for code (and outputs: MQTT, webhooks, `--json`)
  /// written for its delegate: a crossing is `didEnterRegion` or `didExitRegion` (as the
  /// region's `notifyOnEntry` and `notifyOnExit` ask) then `didDetermineState`; a first
  /// decision only `didDetermineState`; a condition that cannot be watched
  /// `monitoringDidFail`. `region` is the region the condition was made from.
  public func actions(for region: Region) -> [LocationManager.Action] {
    switch state {
    case .satisfied:
      return (isCrossing && region.notifyOnEntry ? [.didEnterRegion(region)] : []) + [.didDetermineState(.inside, region: region)]
    case .unsatisfied:
      return (isCrossing && region.notifyOnExit ? [.didExitRegion(region)] : []) + [.didDetermineState(.outside, region: region)]
    case .unknown:
      return [.didDetermineState(.unknown, region: region)]
    case .unmonitored:
      let error =
        conditionLimitExceeded
        ? LocationManager.Error(
          .regionMonitoringDenied, "Region '\(identifier)' is beyond the \(Monitor.conditionLimit) a monitor watches.")
        : LocationManager.Error(
          .regionMonitoringFailure,
          "Region '\(identifier)' cannot be monitored: \(region.problem().map(String.init(describing:)) ?? "it was refused").")
      return [.monitoringDidFail(region: region, error: error)]
    }
  }
}

extension MonitorCondition {
  /// The circle of `region` (its identifier and notification flags stay the region's).
  public init(_ region: Region) {
    self = .circle(center: region.center, radius: region.radius)
  }
}
