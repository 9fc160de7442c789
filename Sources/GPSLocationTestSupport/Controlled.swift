import GPSLocation
import Plumbing

extension LocationManager {
  /// A manager whose delegate streams the test drives: every `delegate()` call subscribes,
  /// and `actions.yield(_:)` sends an action to every subscriber. The other endpoints come
  /// from `base`, `.unimplemented()` unless given.
  ///
  /// ```swift
  /// let (manager, actions) = LocationManager.controlled()
  /// actions.yield(.didChangeAuthorization(.authorizedAlways))
  /// ```
  public static func controlled(
    _ base: LocationManager? = nil, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) -> (manager: LocationManager, actions: ControlledActions) {
    let actions = ControlledActions()
    var manager = base ?? .unimplemented(fileID: fileID, filePath: filePath, line: line, column: column)
    manager.delegate = { actions.broadcaster.subscribe() }
    return (manager, actions)
  }
}

/// Sends actions to the delegate streams of a ``LocationManager/controlled(_:fileID:filePath:line:column:)`` manager.
public struct ControlledActions: Sendable {
  let broadcaster = Broadcaster<LocationManager.Action>()

  /// Delivers `action` to every stream subscribed so far, in order.
  public func yield(_ action: LocationManager.Action) {
    broadcaster.yield(action)
  }

  /// Ends every stream, as a manager that went away would.
  public func finish() {
    broadcaster.finish()
  }

  /// How many `delegate()` streams are subscribed.
  public var subscriberCount: Int { broadcaster.subscriberCount }
}
