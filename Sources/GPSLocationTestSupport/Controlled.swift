import GPSLocation
import Plumbing

extension LocationManager {
  /// A manager whose delegate streams the test drives: every `delegate()` (or
  /// `delegateBatches()`) call subscribes, and `actions.yield(_:)` sends an action to every
  /// subscriber. The other endpoints come
  /// from `base`, `.unimplemented()` unless given.
  ///
  /// Actions yielded before anything has subscribed are kept (up to
  /// ``ControlledActions/pendingLimit``) and delivered, in order, to the first subscriber: a
  /// test may yield first and start the code under test after, in whichever order reads best.
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
    manager.delegate = { actions.subscribe() }
    // The same actions a batch of one at a time, for readers of batches (a `Monitor`).
    manager.delegateBatches = {
      let single = actions.subscribe()
      return AsyncStream { continuation in
        let forwarding = Task {
          for await action in single { continuation.yield([action]) }
          continuation.finish()
        }
        continuation.onTermination = { _ in forwarding.cancel() }
      }
    }
    return (manager, actions)
  }
}

/// Sends actions to the delegate streams of a ``LocationManager/controlled(_:fileID:filePath:line:column:)`` manager.
public struct ControlledActions: Sendable {
  /// How many actions yielded before the first subscriber are kept for it; beyond that the
  /// oldest are dropped (a test that yields this many before subscribing has a bug).
  public static let pendingLimit = 1_000

  let broadcaster = Broadcaster<LocationManager.Action>()
  /// Actions waiting for the first subscriber (`nil` once one has come), and whether
  /// ``finish()`` came first. Shared by every copy, as the broadcaster is.
  private let early = Locked<(pending: [LocationManager.Action]?, finished: Bool)>(([], false))

  init() {}

  /// Delivers `action` to every stream subscribed so far, in order; before the first
  /// subscriber, keeps it for that one.
  public func yield(_ action: LocationManager.Action) {
    early.withLock { early in
      guard early.pending != nil else { return broadcaster.yield(action) }
      if early.pending!.count == Self.pendingLimit { early.pending!.removeFirst() }
      early.pending!.append(action)
    }
  }

  /// Ends every stream, as a manager that went away would. A first subscriber that comes
  /// after the end still gets what was yielded before it, then the end.
  public func finish() {
    early.withLock { early in
      early.finished = true
      broadcaster.finish()
    }
  }

  /// How many `delegate()` streams are subscribed.
  public var subscriberCount: Int { broadcaster.subscriberCount }

  /// A new delegate stream; the first one gets the actions kept for it.
  func subscribe() -> AsyncStream<LocationManager.Action> {
    early.withLock { early in
      guard let kept = early.pending else { return broadcaster.subscribe() }
      early.pending = nil
      if early.finished {
        return AsyncStream { continuation in
          for action in kept { continuation.yield(action) }
          continuation.finish()
        }
      }
      let stream = broadcaster.subscribe()
      for action in kept { broadcaster.yield(action) }
      return stream
    }
  }
}
