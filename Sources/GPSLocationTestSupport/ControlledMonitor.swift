import FoundationEssentials
import GPSLocation

extension Monitor {
  /// A monitor whose decisions the test makes, kept nowhere: `decisions.decide("home",
  /// .satisfied, at: date)` is a fix at `date` that finds the device inside "home", and the
  /// monitor makes of it what it makes of a receiver's (an event only when the state changes,
  /// with that date and the next id).
  ///
  /// ```swift
  /// let (monitor, decisions) = await Monitor.controlled()
  /// await monitor.add(.circle(center: home, radius: 100), identifier: "home")
  /// decisions.decide("home", .satisfied, at: date)
  /// ```
  ///
  /// For a monitor over real fixes, open one over a replay with `storage: .none`: it gives the
  /// same events every run.
  public static func controlled(_ name: String = "controlled") async -> (monitor: Monitor, decisions: MonitorDecisions) {
    let (manager, actions) = LocationManager.controlled(LocationManager())
    // Opening a monitor kept nowhere cannot fail.
    let monitor = try! await Monitor.open(name, for: manager, storage: .none)
    return (monitor, MonitorDecisions(actions: actions))
  }
}

/// Makes the decisions of a ``GPSLocation/Monitor/controlled(_:)`` monitor.
public struct MonitorDecisions: Sendable {
  let actions: ControlledActions

  /// A fix at `date` finds the device `state` (``ConditionState/satisfied`` is inside) for the
  /// condition `identifier`.
  public func decide(_ identifier: String, _ state: ConditionState, at date: Date) {
    actions.yield(.didUpdateLocations([Location(coordinate: LocationCoordinate2D(latitude: 0, longitude: 0), timestamp: date)]))
    actions.yield(
      .didDetermineState(
        RegionState(state), region: Region(identifier: identifier, center: LocationCoordinate2D(latitude: 0, longitude: 0), radius: 1)))
  }

  /// Ends the monitor's events, as a capture's end does.
  public func finish() {
    actions.yield(.didFailWithError(LocationManager.Error(.endOfCapture, "The controlled monitor was finished.")))
  }
}
