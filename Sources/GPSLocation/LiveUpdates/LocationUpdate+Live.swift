extension LocationUpdate {
  /// Live updates from a receiver, as `CLLocationUpdate.liveUpdates(_:)`:
  ///
  /// ```swift
  /// for await update in LocationUpdate.liveUpdates(.automotiveNavigation, from: receiver) {
  ///   if let location = update.location { print(location.coordinate, update.isStationary) }
  /// }
  /// ```
  ///
  /// Each iteration opens a stream of its own over the shared receiver (a manager of its
  /// own, with its own engine): any number of streams, with different configurations, read
  /// one device, which stays open while any of them is iterated and closes after the last
  /// ends. A capture's end ends the stream; a device that goes away is one update with
  /// ``LocationUpdate/locationUnavailable``, and updates go on when it comes back.
  public static func liveUpdates(_ configuration: LiveConfiguration = .default, from receiver: Receiver) -> Updates {
    Updates(configuration: configuration) { .receiver(receiver) }
  }

  /// Live updates from a manager's locations: the manager is told to start updating
  /// locations, and its properties apply first (leave `desiredAccuracy` and `distanceFilter`
  /// at their defaults, or the configuration sees fewer fixes than it judges stillness by).
  /// Handy with a `.replay(…)` or, in tests, a `.controlled()` manager whose actions the test
  /// sends. Ending the iteration does not stop the manager's updates.
  public static func liveUpdates(_ configuration: LiveConfiguration = .default, from manager: LocationManager) -> Updates {
    Updates(configuration: configuration) { manager }
  }

  /// The stream of ``LocationUpdate``s: `CLLocationUpdate.Updates`. It does not throw:
  /// every failure is an update's diagnostic, and a capture's end is the stream's end.
  public struct Updates: AsyncSequence, Sendable {
    public typealias Element = LocationUpdate
    public typealias Failure = Never

    let configuration: LiveConfiguration
    let makeManager: @Sendable () -> LocationManager

    public func makeAsyncIterator() -> Iterator {
      let manager = makeManager()
      // Subscribed before updates start, so the first fix is not missed.
      return Iterator(manager: manager, actions: manager.delegate().makeAsyncIterator(), rule: LiveUpdateRule(configuration: configuration))
    }

    /// Reads the manager's actions and keeps the updates the configuration asks for.
    public struct Iterator: AsyncIteratorProtocol {
      let manager: LocationManager
      var actions: AsyncStream<LocationManager.Action>.Iterator
      var rule: LiveUpdateRule
      var started = false

      public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> LocationUpdate? {
        if !started {
          started = true
          await manager.startUpdatingLocation()
        }
        while let action = await actions.next(isolation: actor) {
          switch rule.step(action) {
          case .update(let update): return update
          case .none: continue
          case .end: return nil
          }
        }
        return nil
      }

      public mutating func next() async -> LocationUpdate? { await next(isolation: nil) }
    }
  }
}
