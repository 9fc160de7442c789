import Synchronization

/// Fans actions out to any number of `delegate()` streams.
///
/// Each subscriber gets its own `AsyncStream` and receives, in order, every action yielded
/// after it subscribed. Ending one stream's iteration unregisters it without touching the
/// others. **Buffering policy:** each subscriber buffers at most ``bufferLimit`` actions;
/// when a subscriber falls that far behind, its oldest unread actions are dropped, so one
/// slow reader can neither grow memory without bound nor hold back the rest. At 10 Hz with
/// heading and regions that is well over a minute of backlog.
public final class Broadcaster<Element: Sendable>: Sendable {
  /// Actions buffered per subscriber before the oldest are dropped.
  public let bufferLimit: Int
  private let state = Mutex(State())

  private struct State: ~Copyable {
    var nextID = 0
    var subscribers: [Int: AsyncStream<Element>.Continuation] = [:] {
      didSet { current = Array(subscribers.values) }
    }
    /// The subscribers as an array, rebuilt only when one comes or goes, so yielding
    /// allocates nothing.
    var current: [AsyncStream<Element>.Continuation] = []
  }

  public init(bufferLimit: Int = 1024) {
    self.bufferLimit = bufferLimit
  }

  /// A new stream that receives every element yielded from now on.
  public func subscribe() -> AsyncStream<Element> {
    let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(bufferLimit))
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      state.subscribers[state.nextID] = continuation
      return state.nextID
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
    return stream
  }

  /// Sends `element` to every current subscriber.
  public func yield(_ element: Element) {
    let subscribers = state.withLock { $0.current }
    for subscriber in subscribers { subscriber.yield(element) }
  }

  /// How many streams are subscribed.
  public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

  /// Ends every stream.
  public func finish() {
    let subscribers = state.withLock { state in
      defer { state.subscribers.removeAll() }
      return Array(state.subscribers.values)
    }
    for subscriber in subscribers { subscriber.finish() }
  }
}
