import NMEA
import Plumbing
import SourceStatus

/// One GPS receiver: a source of bytes, and the listeners that take what its pipeline makes
/// of them, each once: the location engine, a gpsd server's clients, a recording, a program's
/// own stream (`events()`).
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
    /// Each frame of a binary protocol (UBX, RTCM 3) taken out of the byte stream.
    public static let frames = Interests(rawValue: 16)
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
    /// Where ``send(_:)`` hands bytes: the open session's writer, if the source can write.
    var outlet: (id: Int, outlet: Outlet)?
    /// The runner whose task runs the source now, if any.
    var leader: Int?
    /// The other runners, each waiting for the leader's session to end (a continuation once
    /// it waits; `nil` before).
    var followers: [Int: CheckedContinuation<SessionOutcome, Never>?] = [:]
    /// Outcomes decided for followers before they started waiting.
    var decided: [Int: SessionOutcome] = [:]
    /// The serial port's speed, as its session last said it.
    var lineSpeed: Int?
    /// What its pipeline has taken so far.
    var tally = ReceiverTally()
    /// See ``lastTurn``.
    var lastTurn: ContinuousClock.Instant?

    /// What the listeners want together, after one left or changed its mind.
    mutating func updateInterests() {
      interests = entries.reduce(into: []) { $0.formUnion($1.interests) }
    }
  }

  /// Where the bytes come from.
  public let source: any ByteSource
  private let state = Locked(State())

  /// What a session that can write offers: its writer, and, on a serial port, a change of the
  /// port's speed after what was written has gone out.
  package struct Outlet: Sendable {
    package var send: @Sendable ([UInt8]) -> Result<Void, SendError>
    /// Sets the speed; the result is the speed before.
    package var changeLineSpeed: (@Sendable (Int, @escaping @Sendable (Result<Int, SendError>) -> Void) -> Void)?
    /// Runs work on the session's queue, after what is queued there now.
    package var perform: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
    /// Reads the device now and says whether it is still open (see ``Receiver/isLinkOpen()``).
    package var probe: (@Sendable (@escaping @Sendable (Bool) -> Void) -> Void)?

    package init(
      send: @escaping @Sendable ([UInt8]) -> Result<Void, SendError>,
      changeLineSpeed: (@Sendable (Int, @escaping @Sendable (Result<Int, SendError>) -> Void) -> Void)? = nil,
      perform: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil,
      probe: (@Sendable (@escaping @Sendable (Bool) -> Void) -> Void)? = nil
    ) {
      self.send = send
      self.changeLineSpeed = changeLineSpeed
      self.perform = perform
      self.probe = probe
    }
  }

  /// Hands bytes to the open session's writer; sessions attach one while they can write.
  package func attach(_ outlet: Outlet) -> Int {
    state.withLock { state in
      defer { state.nextID += 1 }
      state.outlet = (state.nextID, outlet)
      return state.nextID
    }
  }

  /// Takes back the outlet `id` (a session ended), unless another has replaced it.
  package func detach(_ id: Int) {
    state.withLock { state in
      if state.outlet?.id == id {
        state.outlet = nil
        state.lastTurn = nil
      }
    }
  }

  /// When the open session's queue last turned (its timer ran: every 250 ms while it reads a
  /// serial port); `nil` while no such session is open. A watchdog asks it: a queue that has
  /// stopped turning is the program's own stall, whereas a silent or unplugged receiver is not.
  package var lastTurn: ContinuousClock.Instant? { state.withLock { $0.lastTurn } }

  /// Notes that the session's queue turned (see ``lastTurn``).
  package func noteTurn() { state.withLock { $0.lastTurn = .now } }

  /// Blocks the open session's queue for `duration`: for a watchdog's tests only. `false`
  /// when no session that can be frozen is open.
  package func freezeSessionForTesting(_ duration: Duration) -> Bool {
    guard let perform = outlet?.perform else { return false }
    perform {
      let (seconds, attoseconds) = duration.components
      var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
      _ = nanosleep(&time, nil)
    }
    return true
  }

  /// The serial port's speed, as its session last said it: where the receiver is heard now
  /// (`nil` before a session found it, and for sources that are no serial port).
  package var lineSpeed: Int? { state.withLock { $0.lineSpeed } }

  /// What the receiver's pipeline has taken and thrown away so far (see ``ReceiverTally``).
  package var tally: ReceiverTally { state.withLock { $0.tally } }

  /// Keeps what the pipeline has counted, for ``tally``: once a read or a released epoch.
  package func record(_ tally: ReceiverTally) { state.withLock { $0.tally = tally } }

  /// The outlet of the open session, if any.
  var outlet: Outlet? { state.withLock { $0.outlet?.outlet } }

  /// Whether a session that can write is open, asked of the device itself: its descriptor is
  /// read at once on the session's queue, so a device that went away is known to be gone now,
  /// not when its hang-up reaches the reader (late, on a loaded machine). A caller that waited
  /// for an answer in vain asks this before it blames the receiver for not answering.
  package func isLinkOpen() async -> Bool {
    guard let outlet else { return false }
    guard let probe = outlet.probe else { return true }
    return await withCheckedContinuation { continuation in probe { continuation.resume(returning: $0) } }
  }

  public init(_ source: any ByteSource) {
    self.source = source
  }

  /// Reads the source until the task is cancelled or the source ends, publishing as it goes.
  ///
  /// The receiver owns its session: however many tasks run it at once (a `LocationManager`,
  /// a gpsd server and a recording sharing one receiver), the source runs once, so the device
  /// is opened once. The first to run leads: the source runs in its task (on its executor, with
  /// its cancellation), and it returns once the source has stopped (its device closed, its
  /// settings restored). The others wait: each returns when it is cancelled, or when the
  /// source ends by itself (the end of a capture, a cause that cannot go away); when the
  /// leader is cancelled, one of them takes over and opens the device again.
  public func run() async {
    while !Task.isCancelled {
      let (id, leads) = state.withLock { state -> (Int, Bool) in
        defer { state.nextID += 1 }
        if state.leader == nil {
          state.leader = state.nextID
          return (state.nextID, true)
        }
        state.followers[state.nextID] = .some(nil)
        return (state.nextID, false)
      }
      if leads {
        await source.run(for: self)
        let outcome: SessionOutcome = Task.isCancelled ? .leaderLeft : .ended
        let waiting = state.withLock { state -> [CheckedContinuation<SessionOutcome, Never>] in
          state.leader = nil
          var waiting: [CheckedContinuation<SessionOutcome, Never>] = []
          for (follower, continuation) in state.followers {
            if let continuation { waiting.append(continuation) } else { state.decided[follower] = outcome }
          }
          state.followers.removeAll()
          return waiting
        }
        for continuation in waiting { continuation.resume(returning: outcome) }
        return
      }
      let outcome = await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<SessionOutcome, Never>) in
          let decided = state.withLock { state -> SessionOutcome? in
            if let outcome = state.decided.removeValue(forKey: id) { return outcome }
            state.followers[id] = continuation
            return nil
          }
          if let decided { continuation.resume(returning: decided) }
        }
      } onCancel: {
        let waiting = state.withLock { state -> CheckedContinuation<SessionOutcome, Never>? in
          guard let entry = state.followers.removeValue(forKey: id) else { return nil }
          guard let continuation = entry else {
            state.decided[id] = .cancelled
            return nil
          }
          return continuation
        }
        waiting?.resume(returning: .cancelled)
      }
      state.withLock { _ = $0.decided.removeValue(forKey: id) }
      // The leader was cancelled while this one still runs: take over.
      guard outcome == .leaderLeft else { return }
    }
  }

  /// How a follower's wait in ``run()`` ended.
  enum SessionOutcome: Sendable {
    /// The source ended by itself: everyone returns.
    case ended
    /// The leader was cancelled: a follower still running takes over.
    case leaderLeft
    /// The follower itself was cancelled.
    case cancelled
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
    stream(wanting: interests, bufferingNewest: limit) { event, yield in yield(event) }
  }

  /// A stream fed by a listener of its own through a ``Broadcaster`` (bounded, the oldest
  /// dropped first): the one way a receiver's events reach an async reader. `transform` turns
  /// each event into what the stream carries, yielding none or several, on the publishing
  /// queue. Letting go of the stream removes the listener.
  package func stream<Element: Sendable>(
    wanting interests: Interests, bufferingNewest limit: Int,
    _ transform: @escaping @Sendable (ReceiverEvent, (Element) -> Void) -> Void
  ) -> AsyncStream<Element> {
    let broadcaster = Broadcaster<Element>(bufferLimit: limit)
    let listener = Locked<Listener?>(nil)
    // Subscribed before listening, so that no event falls between the two.
    let stream = broadcaster.subscribe(onEnd: { [weak self] in
      if let listener = listener.withLock({ $0 }) { self?.stopListening(listener) }
    })
    listener.withLock { $0 = listen(wanting: interests) { event in transform(event) { broadcaster.yield($0) } } }
    return stream
  }

  /// What the listeners want together: sources make bytes and sentences only when wanted.
  package var interests: Interests { state.withLock { $0.interests } }

  /// Hands `event` to every listener that wants it, in the order they were added.
  package func publish(_ event: ReceiverEvent) {
    if case .lineSpeed(let speed) = event { state.withLock { $0.lineSpeed = speed } }
    let entries = state.withLock { $0.entries }
    let kind: Interests =
      switch event {
      case .fix: .fixes
      case .bytes: .bytes
      case .sentence: .sentences
      case .frame: .frames
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
