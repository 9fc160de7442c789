import Plumbing

/// A clock that moves only when the test says so: replays paced by it, `requestLocation`
/// timeouts and anything else that sleeps on it wake exactly when ``advance(by:)`` passes
/// their deadline, however busy the machine is.
///
/// ```swift
/// let clock = TestClock()
/// let manager = LocationManager.replay(capture: capture, speed: .realTime, clock: clock)
/// await manager.startUpdatingLocation()
/// await clock.advance(by: .seconds(1))   // the next second of the capture plays
/// ```
public final class TestClock: Clock, Sendable {
  public struct Instant: InstantProtocol, CustomStringConvertible {
    /// Time since the clock was made.
    public var offset: Duration

    public init(offset: Duration = .zero) { self.offset = offset }
    public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    public func duration(to other: Instant) -> Duration { other.offset - offset }
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    public var description: String { "\(offset)" }
  }

  private struct Sleeper {
    var id: Int
    var deadline: Instant
    var continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = Instant()
    var nextID = 0
    var sleepers: [Sleeper] = []
    var waiters: [(isSatisfied: ([Sleeper]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

    /// The waiters whose sleepers are there now, taken out to be resumed.
    mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
      let sleepers = sleepers
      let ready = waiters.filter { $0.isSatisfied(sleepers) }.map(\.continuation)
      waiters.removeAll { $0.isSatisfied(sleepers) }
      return ready
    }
  }

  private let state = Locked(State())

  public init() {}

  public var now: Instant { state.withLock { $0.now } }
  public var minimumResolution: Duration { .zero }

  /// Sleeps until ``advance(by:)`` reaches `deadline`; throws `CancellationError` if the task
  /// is cancelled first.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let (due, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
          guard deadline > state.now, !Task.isCancelled else { return (true, []) }
          state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return (false, state.satisfiedWaiters())
        }
        for waiter in waiters { waiter.resume() }
        if due { Task.isCancelled ? continuation.resume(throwing: CancellationError()) : continuation.resume() }
      }
    } onCancel: {
      let sleeper = state.withLock { state -> Sleeper? in
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return state.sleepers.remove(at: index)
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves the clock on by `duration`, waking every sleeper whose deadline it reaches.
  public func advance(by duration: Duration) {
    let woken = state.withLock { state -> [Sleeper] in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let woken = state.sleepers.filter { $0.deadline <= now }
      state.sleepers.removeAll { $0.deadline <= now }
      return woken.sorted { $0.deadline < $1.deadline }
    }
    for sleeper in woken { sleeper.continuation.resume() }
  }

  /// How many tasks sleep on the clock now.
  public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// Returns once at least `count` tasks sleep on the clock: a test waits for the code under
  /// test to reach its next sleep before it moves the clock, rather than guessing how long
  /// that takes.
  public func waitForSleepers(_ count: Int = 1) async {
    await waitUntil { $0.count >= count }
  }

  /// Returns once a task sleeps until exactly `deadline`: a test tells one wait (a backoff of
  /// 200 ms from now) from others that sleep on the same clock (a timer's next tick), and
  /// learns that the code under test chose that wait, not another.
  public func waitForSleeper(until deadline: Instant) async {
    await waitUntil { sleepers in sleepers.contains { $0.deadline == deadline } }
  }

  private func waitUntil(_ isSatisfied: @escaping ([Sleeper]) -> Bool) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = state.withLock { state in
        guard !isSatisfied(state.sleepers) else { return true }
        state.waiters.append((isSatisfied, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }
}
