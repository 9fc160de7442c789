import GPSLocation

extension LocationManager {
  /// A manager whose delegate streams the test drives: every `delegate()` call subscribes
  /// to the returned broadcaster, and `actions.yield(_:)` sends an action to all of them.
  /// The other endpoints come from `base`, `.unimplemented` unless given.
  ///
  /// ```swift
  /// let (manager, actions) = LocationManager.controlled()
  /// actions.yield(.didChangeAuthorization(.authorizedAlways))
  /// ```
  public static func controlled(_ base: LocationManager = .unimplemented) -> (manager: LocationManager, actions: Broadcaster<Action>) {
    let actions = Broadcaster<Action>()
    var manager = base
    manager.delegate = { actions.subscribe() }
    return (manager, actions)
  }
}
