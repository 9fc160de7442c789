/// Fans elements out to any number of subscribers, a batch at a time.
///
/// Each subscriber has its own queue. A yield appends to every queue under one lock and
/// wakes a waiting reader at most once; a reader takes everything queued at once, handing
/// back the array it has finished with, so a steady stream allocates nothing. A producer
/// that yields many elements together (``yield(contentsOf:)``) and a reader that takes
/// whatever is ready thus pay one lock and one wake-up per batch, never per element, and a
/// reader that keeps up still gets each element as soon as it is yielded.
///
/// **Buffering policy:** each subscriber's queue holds at most ``bufferLimit`` elements (or
/// one batch, if that is larger: a batch is never cut); when a subscriber falls that far
/// behind, its oldest unread elements are dropped, so one slow reader can neither grow memory
/// without bound nor hold back the rest. At 10 Hz with
/// heading and regions that is well over a minute of backlog.
///
/// A producer that would rather wait than lose elements (a replay running as fast as it can)
/// calls ``waitForRoom()`` between yields: it returns once every subscriber's queue is at
/// most half full, or after ``roomTimeout`` at the latest, so a subscriber that stopped
/// reading slows such a producer down but cannot stop it.
package final class Broadcaster<Element: Sendable>: Sendable {
  /// Elements queued per subscriber before the oldest are dropped.
  package let bufferLimit: Int
  /// The longest ``waitForRoom()`` waits.
  package let roomTimeout: Duration
  private let state = Locked(State())

  private struct Queue {
    let id: Int
    var elements: [Element] = []
    /// The array the reader finished with, emptied: the next batch is gathered in it.
    var spare: [Element] = []
    /// The reader, while it waits for elements.
    var reader: UnsafeContinuation<[Element]?, Never>?
  }

  private struct State {
    var nextID = 0
    var queues: [Queue] = []
    var finished = false
    var nextWaiter = 0
    var waiters: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []

    // Loops rather than `firstIndex(where:)` and `contains(where:)`: in this generic type those
    // take their closures unspecialized, which allocated (0.02 more allocations per epoch).
    func index(of id: Int) -> Int? {
      for index in queues.indices where queues[index].id == id { return index }
      return nil
    }

    func isCrowded(beyond count: Int) -> Bool {
      for index in queues.indices where queues[index].elements.count > count { return true }
      return false
    }

    /// The waiting producers, when no queue is crowded any more; they are resumed by the caller.
    mutating func producersToWake(half: Int) -> [CheckedContinuation<Void, Never>] {
      guard !waiters.isEmpty, !isCrowded(beyond: half) else { return [] }
      defer { waiters.removeAll() }
      return waiters.map(\.continuation)
    }
  }

  /// Sleeps for ``roomTimeout`` on the clock the broadcaster was given.
  private let sleepForRoomTimeout: @Sendable () async throws -> Void

  package init(bufferLimit: Int = 1024, roomTimeout: Duration = .seconds(1), clock: some Clock<Duration> = ContinuousClock()) {
    self.bufferLimit = bufferLimit
    self.roomTimeout = roomTimeout
    self.sleepForRoomTimeout = { try await clock.sleep(for: roomTimeout) }
  }

  /// A subscription that receives every element yielded from now on, a batch at a time.
  package func subscribeBatches() -> Subscription {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      if !state.finished { state.queues.append(Queue(id: state.nextID)) }
      return state.nextID
    }
    return Subscription(broadcaster: self, id: id)
  }

  /// A new stream that receives every element yielded from now on. Reading it takes the
  /// queue a batch at a time underneath, so it costs a lock per batch, not per element.
  /// `onEnd` runs once the stream is let go of (its reader stopped iterating and dropped it):
  /// for a producer that feeds only this stream, to stop.
  package func subscribe(onEnd: (@Sendable () -> Void)? = nil) -> AsyncStream<Element> {
    let reader = ElementReader(subscribeBatches(), onEnd: onEnd)
    return AsyncStream(unfolding: { await reader.next() })
  }

  /// A new stream of batches: each element is everything yielded since the reader last asked.
  package func subscribeArrays() -> AsyncStream<[Element]> {
    let subscription = subscribeBatches()
    return AsyncStream(unfolding: {
      var batch: [Element] = []
      return await subscription.next(into: &batch) ? batch : nil
    })
  }

  /// Sends `element` to every current subscriber.
  package func yield(_ element: Element) {
    publish(count: 1) { $0.append(element) }
  }

  /// Sends `elements`, in order, to every current subscriber, with one lock and at most one
  /// wake-up per subscriber.
  package func yield(contentsOf elements: [Element]) {
    guard !elements.isEmpty else { return }
    publish(count: elements.count) { $0.append(contentsOf: elements) }
  }

  private func publish(count: Int, _ append: (inout [Element]) -> Void) {
    // One batch is never cut: a perform of 10,000 regions yields 20,000 actions together,
    // and a reader gets all of them (older unread elements go first).
    let limit = max(bufferLimit, count)
    state.withLock { state in
      for index in state.queues.indices {
        append(&state.queues[index].elements)
        let excess = state.queues[index].elements.count - limit
        if excess > 0 { state.queues[index].elements.removeFirst(excess) }
        if let reader = state.queues[index].reader {
          // Resuming only schedules the reader, so it may happen under the lock.
          state.queues[index].reader = nil
          var batch = state.queues[index].spare
          swap(&batch, &state.queues[index].elements)
          state.queues[index].spare = []
          reader.resume(returning: batch)
        }
      }
    }
  }

  /// Returns once every subscriber has at most half a queue unread, or after ``roomTimeout``.
  package func waitForRoom() async {
    let half = bufferLimit / 2
    guard state.withLock({ $0.isCrowded(beyond: half) }) else { return }
    let id = state.withLock { state in
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    let timeout = Task { [weak self, sleepForRoomTimeout] in
      try? await sleepForRoomTimeout()
      self?.resumeWaiter(id)
    }
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      let ready = state.withLock { state in
        guard state.isCrowded(beyond: half) else { return true }
        state.waiters.append((id, waiter))
        return false
      }
      if ready { waiter.resume() }
    }
    timeout.cancel()
  }

  /// How many subscriptions are registered.
  package var subscriberCount: Int { state.withLock { $0.queues.count } }

  /// How many subscribers wait for their next element now: a test yields once a reader is
  /// parked, so that the yield is what wakes it.
  package var waitingReaderCount: Int {
    state.withLock { state in
      var count = 0
      for queue in state.queues where queue.reader != nil { count += 1 }
      return count
    }
  }

  /// Ends every subscription once its reader has taken what is queued; later subscriptions
  /// end at once.
  package func finish() {
    let producers = state.withLock { state in
      state.finished = true
      for index in state.queues.indices {
        state.queues[index].reader?.resume(returning: nil)
        state.queues[index].reader = nil
      }
      defer { state.waiters.removeAll() }
      return state.waiters.map(\.continuation)
    }
    for producer in producers { producer.resume() }
  }

  /// Replaces `batch` with everything queued for `id`, waiting until something is; `false`
  /// once the broadcaster has finished and the queue is empty, or the subscription ended.
  fileprivate func next(for id: Int, into batch: inout [Element]) async -> Bool {
    batch.removeAll(keepingCapacity: true)
    if Task.isCancelled {
      unregister(id)
      return false
    }
    let half = bufferLimit / 2
    var producers: [CheckedContinuation<Void, Never>] = []
    let ready: Bool? = state.withLock { state in
      guard let index = state.index(of: id) else { return false }
      guard state.queues[index].elements.isEmpty else {
        swap(&batch, &state.queues[index].elements)
        producers = state.producersToWake(half: half)
        return true
      }
      return state.finished ? false : nil
    }
    for producer in producers { producer.resume() }
    if let ready { return ready }

    let spent = batch
    batch = []
    let taken: [Element]? = await withTaskCancellationHandler {
      await withUnsafeContinuation { (reader: UnsafeContinuation<[Element]?, Never>) in
        state.withLock { state in
          guard let index = state.index(of: id) else { return reader.resume(returning: nil) }
          guard state.queues[index].elements.isEmpty else {
            var taken = spent
            swap(&taken, &state.queues[index].elements)
            return reader.resume(returning: taken)
          }
          if state.finished { return reader.resume(returning: nil) }
          state.queues[index].spare = spent
          state.queues[index].reader = reader
        }
      }
    } onCancel: {
      unregister(id)
    }
    guard let taken else { return false }
    batch = taken
    let waking = state.withLock { $0.producersToWake(half: half) }
    for producer in waking { producer.resume() }
    return true
  }

  fileprivate func unregister(_ id: Int) {
    let producers = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard let index = state.index(of: id) else { return [] }
      let queue = state.queues.remove(at: index)
      queue.reader?.resume(returning: nil)
      defer { state.waiters.removeAll() }
      return state.waiters.map(\.continuation)
    }
    for producer in producers { producer.resume() }
  }

  private func resumeWaiter(_ id: Int) {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
      return state.waiters.remove(at: index).continuation
    }
    waiter?.resume()
  }

  /// One subscriber's end: ``next(into:)`` takes everything yielded since the last call.
  /// Releasing the subscription unregisters it.
  package final class Subscription: Sendable {
    private let broadcaster: Broadcaster
    private let id: Int

    fileprivate init(broadcaster: Broadcaster, id: Int) {
      self.broadcaster = broadcaster
      self.id = id
    }

    deinit { broadcaster.unregister(id) }

    /// Replaces `batch` with every element yielded since the last call, in order, waiting
    /// until there is at least one; `false` when there will be no more (the broadcaster
    /// finished, or the reading task was cancelled). The array passed in is reused, so
    /// reading with the same one each time allocates nothing. Call from one task at a time.
    package func next(into batch: inout [Element]) async -> Bool {
      await broadcaster.next(for: id, into: &batch)
    }
  }
}

/// Hands out a subscription's batches one element at a time, for `subscribe()`'s stream.
/// Only the task iterating that stream touches it.
private final class ElementReader<Element: Sendable>: @unchecked Sendable {
  private let subscription: Broadcaster<Element>.Subscription
  private let onEnd: (@Sendable () -> Void)?
  private var batch: [Element] = []
  private var position = 0

  init(_ subscription: Broadcaster<Element>.Subscription, onEnd: (@Sendable () -> Void)?) {
    self.subscription = subscription
    self.onEnd = onEnd
  }

  deinit { onEnd?() }

  func next() async -> Element? {
    if position == batch.count {
      var batch = self.batch
      self.batch = []
      guard await subscription.next(into: &batch) else { return nil }
      self.batch = batch
      position = 0
    }
    defer { position += 1 }
    return batch[position]
  }
}
