/// Fans actions out to any number of `delegate()` streams.
///
/// Each subscriber gets its own `AsyncStream` and receives, in order, every action yielded
/// after it subscribed. Ending one stream's iteration unregisters it without touching the
/// others. **Buffering policy:** each subscriber buffers at most ``bufferLimit`` actions;
/// when a subscriber falls that far behind, its oldest unread actions are dropped, so one
/// slow reader can neither grow memory without bound nor hold back the rest. At 10 Hz with
/// heading and regions that is well over a minute of backlog.
///
/// A producer that would rather wait than lose actions (a replay running as fast as it can)
/// calls ``waitForRoom()`` between yields: it returns once every subscriber's buffer is at
/// most half full, or after ``roomTimeout`` at the latest, so a subscriber that stopped
/// reading slows such a producer down but cannot stop it.
package final class Broadcaster<Element: Sendable>: Sendable {
  /// Actions buffered per subscriber before the oldest are dropped.
  package let bufferLimit: Int
  /// The longest ``waitForRoom()`` waits.
  package let roomTimeout: Duration
  private let state = Locked(State())

  private struct State {
    var nextID = 0
    var continuations: [Int: AsyncStream<Element>.Continuation] = [:] {
      didSet { current = continuations.map { ($0.key, $0.value) } }
    }
    /// The subscribers as an array, rebuilt only when one comes or goes, so yielding
    /// allocates nothing.
    var current: [(Int, AsyncStream<Element>.Continuation)] = []
    /// Unread actions per subscriber, as the last yield and the reads since report it.
    var unread: [Int: Int] = [:]
    var nextWaiter = 0
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
  }

  package init(bufferLimit: Int = 1024, roomTimeout: Duration = .seconds(1)) {
    self.bufferLimit = bufferLimit
    self.roomTimeout = roomTimeout
  }

  /// A new stream that receives every element yielded from now on.
  package func subscribe() -> AsyncStream<Element> {
    let (inner, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(bufferLimit))
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      state.continuations[state.nextID] = continuation
      state.unread[state.nextID] = 0
      return state.nextID
    }
    continuation.onTermination = { [weak self] _ in self?.unregister(id) }
    // The stream handed out counts what its reader takes, so producers can wait for room.
    let reader = Reader(inner.makeAsyncIterator())
    return AsyncStream(
      unfolding: { [weak self] in
        let element = await reader.next()
        if element != nil { self?.taken(by: id) }
        return element
      },
      onCancel: { [weak self] in self?.unregister(id) })
  }

  /// Sends `element` to every current subscriber.
  package func yield(_ element: Element) {
    let subscribers = state.withLock { $0.current }
    var fill: [(Int, Int)] = []
    for (id, subscriber) in subscribers {
      if case .enqueued(let remaining) = subscriber.yield(element) { fill.append((id, bufferLimit - remaining)) }
    }
    guard !fill.isEmpty else { return }
    state.withLock { state in
      for (id, unread) in fill where state.unread[id] != nil { state.unread[id] = unread }
    }
  }

  /// Returns once every subscriber has at most half a buffer unread, or after
  /// ``roomTimeout``.
  package func waitForRoom() async {
    let half = bufferLimit / 2
    guard state.withLock({ state in state.unread.values.contains { $0 > half } }) else { return }
    let id = state.withLock { state in
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    let timeout = Task { [weak self, roomTimeout] in
      try? await Task.sleep(for: roomTimeout)
      self?.resumeWaiter(id)
    }
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      let ready = state.withLock { state in
        guard state.unread.values.contains(where: { $0 > half }) else { return true }
        state.waiters[id] = waiter
        return false
      }
      if ready { waiter.resume() }
    }
    timeout.cancel()
  }

  /// How many streams are subscribed.
  package var subscriberCount: Int { state.withLock { $0.continuations.count } }

  /// Ends every stream.
  package func finish() {
    let subscribers = state.withLock { state in
      defer { state.continuations.removeAll() }
      return Array(state.continuations.values)
    }
    for subscriber in subscribers { subscriber.finish() }
    resumeAllWaiters()
  }

  private func taken(by id: Int) {
    let half = bufferLimit / 2
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      if let unread = state.unread[id], unread > 0 { state.unread[id] = unread - 1 }
      guard !state.waiters.isEmpty, !state.unread.values.contains(where: { $0 > half }) else { return [] }
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  private func unregister(_ id: Int) {
    let continuation = state.withLock { state -> AsyncStream<Element>.Continuation? in
      state.unread[id] = nil
      return state.continuations.removeValue(forKey: id)
    }
    continuation?.finish()
    resumeAllWaiters()
  }

  private func resumeWaiter(_ id: Int) {
    state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
  }

  private func resumeAllWaiters() {
    let waiters = state.withLock { state in
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }
}

/// Holds a stream's iterator so the stream handed to a subscriber can call it.
private final class Reader<Element: Sendable>: @unchecked Sendable {
  private var iterator: AsyncStream<Element>.Iterator
  init(_ iterator: AsyncStream<Element>.Iterator) { self.iterator = iterator }
  func next() async -> Element? { await iterator.next() }
}
