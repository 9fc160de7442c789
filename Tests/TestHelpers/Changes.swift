import Dispatch
import Plumbing

/// Wakes the tests waiting on a state each time that state changes: the way a test waits for
/// what it is told of (a line written, a message received, a process ended) without looking
/// at the clock between looks. The only timer is the bound, which only a broken build reaches.
public final class Changes: Sendable {
  private struct Waiting {
    var generation = 0
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextWaiter = 0
  }
  private let waiting = Locked(Waiting())

  public init() {}

  /// Says that the state may have changed: every waiter looks again.
  public func changed() {
    let woken = waiting.withLock { waiting in
      waiting.generation += 1
      defer { waiting.waiters = [:] }
      return Array(waiting.waiters.values)
    }
    for waiter in woken { waiter.resume() }
  }

  /// Waits until `condition` holds, looking again at each change; `false` after `timeout`
  /// (a bound, never a number of seconds the test relies on).
  public func until(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = DispatchTime.now() + .nanoseconds(Int(timeout / .nanoseconds(1)))
    while true {
      let seen = waiting.withLock { $0.generation }
      if condition() { return true }
      if DispatchTime.now() >= deadline || Task.isCancelled { return false }
      // The bound, armed for each wait (a timer that fired a moment early would otherwise
      // leave the next wait unbounded); a cancelled test wakes at once.
      let bound = DispatchWorkItem { [weak self] in self?.changed() }
      DispatchQueue.global().asyncAfter(deadline: deadline, execute: bound)
      await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          let resumeNow = waiting.withLock { waiting -> Bool in
            guard waiting.generation == seen else { return true }
            waiting.waiters[waiting.nextWaiter] = continuation
            waiting.nextWaiter += 1
            return false
          }
          if resumeNow { continuation.resume() }
        }
      } onCancel: {
        changed()
      }
      bound.cancel()
    }
  }
}

/// A state shared with code under test, whose changes wake ``until(timeout:_:)``: a
/// ``Locked`` that tells.
public final class Watched<State: Sendable>: @unchecked Sendable {
  private let state: Locked<State>
  private let changes = Changes()

  public init(_ state: State) { self.state = Locked(state) }

  /// Runs `body` with the state, holding the lock; then wakes whoever waits on it (a
  /// condition reads ``value`` instead, or it would wake itself).
  public func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    defer { changes.changed() }
    return try state.withLock(body)
  }

  /// The state as it is now.
  public var value: State { state.withLock { $0 } }

  /// Waits until `condition` holds of the state.
  public func until(timeout: Duration = .seconds(30), _ condition: (State) -> Bool) async -> Bool {
    await changes.until(timeout: timeout) { condition(value) }
  }
}
