import NMEA
import Plumbing
import SourceStatus

/// One GPS receiver: a source of bytes, and the listeners that take what its pipeline makes
/// of them, each once: the location engine, a gpsd server's clients, a recording, a program's
/// own stream (``events()``).
///
/// Events reach listeners on the source's own queue or task, as soon as they are made, with
/// no actor or task hop between: asynchrony lives only at a listener's own queue or stream. A
/// listener says what it needs beyond fixes and status (``Interests``), so that nobody pays for
/// copies of bytes and sentences that nobody reads.
///
/// ```swift
/// let receiver = Receiver(SerialSource(path: "/dev/ttyACM0"))
/// let events = receiver.events()
/// Task { await receiver.run() }
/// for await event in events { print(event) }
/// ```
public final class Receiver: Sendable, ReceiverEventSink {
  /// What a listener wants besides the source's status, notices, rejects and flushes, which
  /// every listener hears.
  public struct Interests: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The receiver's bytes as read.
    public static let bytes = Interests(rawValue: 1)
    /// Each sentence, before the fix it joins.
    public static let sentences = Interests(rawValue: 2)
    /// The satellites in view, on each fix (a gpsd's SKY reports need them).
    public static let satellites = Interests(rawValue: 4)
    /// Each fix.
    public static let fixes = Interests(rawValue: 8)
  }

  /// A registered listener; ``stopListening(_:)`` takes it back.
  public struct Listener: Hashable, Sendable {
    let id: Int
  }

  private struct Entry {
    var id: Int
    var interests: Interests
    var handler: @Sendable (ReceiverEvent) -> Void
    var waitForRoom: (@Sendable () async -> Void)?
  }

  private struct State {
    var entries: [Entry] = []
    var nextID = 0
    var interests: Interests = []

    /// What the listeners want together, after one left or changed its mind.
    mutating func updateInterests() {
      interests = entries.reduce(into: []) { $0.formUnion($1.interests) }
    }
  }

  /// Where the bytes come from.
  public let source: any ByteSource
  private let state = Locked(State())

  public init(_ source: any ByteSource) {
    self.source = source
  }

  /// Reads the source until the task is cancelled or the source ends, publishing as it goes.
  public func run() async {
    await source.run(for: self)
  }

  /// Adds a listener: `handler` is called with every event it wants from now on, on the
  /// source's queue or task, and must not block. `waitForRoom`, if given, is awaited by a source that
  /// prefers lossless delivery (a replay) before it goes on, so a listener with a queue of
  /// its own can slow a replay instead of dropping events.
  @discardableResult
  public func listen(
    wanting interests: Interests = .fixes, waitForRoom: (@Sendable () async -> Void)? = nil,
    _ handler: @escaping @Sendable (ReceiverEvent) -> Void
  ) -> Listener {
    state.withLock { state in
      defer { state.nextID += 1 }
      state.entries.append(Entry(id: state.nextID, interests: interests, handler: handler, waitForRoom: waitForRoom))
      state.interests.formUnion(interests)
      return Listener(id: state.nextID)
    }
  }

  /// Removes a listener; it is called no more once this returns (unless an event is being
  /// delivered to it on another thread at this moment).
  public func stopListening(_ listener: Listener) {
    state.withLock { state in
      state.entries.removeAll { $0.id == listener.id }
      state.updateInterests()
    }
  }

  /// Changes what `listener` wants, from the next event on: a gpsd server wants sentences
  /// only while a client watches them.
  package func update(_ listener: Listener, wanting interests: Interests) {
    state.withLock { state in
      guard let index = state.entries.firstIndex(where: { $0.id == listener.id }) else { return }
      state.entries[index].interests = interests
      state.updateInterests()
    }
  }

  /// A stream of every event from now on, for a program that reads them at its own pace: a
  /// reader that falls behind by `bufferingNewest` events loses the oldest. Ending the
  /// stream's iteration removes its listener.
  public func events(wanting interests: Interests = .fixes, bufferingNewest limit: Int = 1024) -> AsyncStream<ReceiverEvent> {
    let (stream, continuation) = AsyncStream.makeStream(of: ReceiverEvent.self, bufferingPolicy: .bufferingNewest(limit))
    let listener = listen(wanting: interests) { event in continuation.yield(event) }
    continuation.onTermination = { [weak self] _ in self?.stopListening(listener) }
    return stream
  }

  /// What the listeners want together: sources make bytes and sentences only when wanted.
  package var interests: Interests { state.withLock { $0.interests } }

  /// Hands `event` to every listener that wants it, in the order they were added.
  package func publish(_ event: ReceiverEvent) {
    let entries = state.withLock { $0.entries }
    let kind: Interests =
      switch event {
      case .fix: .fixes
      case .bytes: .bytes
      case .sentence: .sentences
      default: []
      }
    for entry in entries where entry.interests.isSuperset(of: kind) { entry.handler(event) }
  }

  /// Returns once every listener that has a queue of its own has room in it again (see
  /// ``listen(wanting:waitForRoom:_:)``).
  package func waitForListeners() async {
    let entries = state.withLock { $0.entries }
    for entry in entries { if let wait = entry.waitForRoom { await wait() } }
  }
}

/// Where a source's pipeline publishes: the receiver itself, or a batch that a fast replay
/// hands to the receiver a piece at a time.
package protocol ReceiverEventSink {
  /// What the listeners want together.
  var interests: Receiver.Interests { get }
  func publish(_ event: ReceiverEvent)
}

/// Events gathered for the receiver and published later, in order, all at once.
package final class ReceiverEventBatch: ReceiverEventSink {
  package let interests: Receiver.Interests
  package private(set) var events: [ReceiverEvent] = []

  package init(for receiver: Receiver) {
    interests = receiver.interests
  }

  package func publish(_ event: ReceiverEvent) {
    events.append(event)
  }
}
