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
/// The receiver runs by its listeners' demand: the session starts (the device is opened, the
/// capture played) when the listeners together first want something, and ends (the device
/// closed, its settings restored) when none wants anything any more. Nobody runs it, and one
/// listener leaving never restarts what another hears: a replay is played once, a device
/// opened once, however many listen. A listener that wants nothing (`[]`) only hears the
/// status of a session others want.
///
/// ```swift
/// let receiver = Receiver(SerialSource(path: "/dev/ttyACM0"))
/// for await event in receiver.events() { print(event) }
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
    /// Whether what it wants keeps the session going (an observer's does not).
    var demands = true
    var handler: @Sendable (ReceiverEvent) -> Void
    var waitForRoom: (@Sendable () async -> Void)?
  }

  private struct State {
    var entries: [Entry] = []
    var nextID = 0
    var interests: Interests = []
    /// What the listeners that keep the session going want together: not empty, it runs.
    var demand: Interests = []
    /// Where ``send(_:)`` hands bytes: the open session's writer, if the source can write.
    var outlet: (id: Int, outlet: Outlet)?
    /// The session running now, if any, and which one it is.
    var session: (id: Int, task: Task<Void, Never>)?
    /// The last session cancelled, until it has closed its device: the next one waits for it.
    var closing: Task<Void, Never>?
    /// The source ended by itself (a capture's end, a cause that cannot go away) while
    /// listeners still wanted it: nothing starts it again until they have all stopped wanting.
    var endedByItself = false
    /// The session whose source is running now (it no longer waits for the one before to
    /// close), and whether it has said it ended or stopped: what a session taken off says
    /// as it closes is not the next one's end.
    var running: Int?
    var runningSaidEnd = false
    /// The listeners that started wanting after the running session said it ended: they heard
    /// nothing of that end, and the next session starts for those still wanting once it
    /// returns.
    var wantedAfterEnd: Set<Int> = []
    /// Who waits in ``waitForEnd()``.
    var endWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    /// What the open session said of its authorization last (the device is open and read),
    /// until it pauses or ends: a listener that joins a session already open hears it first.
    var authorization: AuthorizationStatus?
    /// The serial port's speed, as its session last said it.
    var lineSpeed: Int?
    /// What its pipeline has taken so far.
    var tally = ReceiverTally()
    /// See ``lastTurn``.
    var lastTurn: ContinuousClock.Instant?

    /// What the listeners want together, after one left or changed its mind.
    mutating func updateInterests() {
      interests = entries.reduce(into: []) { $0.formUnion($1.interests) }
      demand = entries.reduce(into: []) { if $1.demands { $0.formUnion($1.interests) } }
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

  /// Whether a session is open now (for tests: it opens as a want is declared, or not at all).
  package var hasOpenSession: Bool { state.withLock { $0.session != nil } }

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

  /// Under the lock, after a change of what the listeners want: starts a session when the
  /// demand asks for one and none runs, or takes the running one off when nothing is wanted
  /// any more, returning it to be cancelled once the lock is let go. The task is made here,
  /// under the lock, so two listeners arriving at once never start two sessions on one
  /// device; it is the task of the listener that asked first (its task-local values and
  /// executor preference, a test's dedicated thread, hold for the source too), and it waits
  /// for the session before it to have closed its device.
  private func followDemand(_ state: inout State) -> Task<Void, Never>? {
    if state.demand.isEmpty {
      state.endedByItself = false
      state.wantedAfterEnd = []
      guard let session = state.session else { return nil }
      state.closing = session.task
      state.session = nil
      state.running = nil
      state.authorization = nil
      return session.task
    }
    guard state.session == nil, !state.endedByItself else { return nil }
    state.wantedAfterEnd = []
    let id = state.nextID
    state.nextID += 1
    let closing = state.closing
    let task = Task { [self] in
      await closing?.value
      guard !Task.isCancelled else { return }
      // What the session before said of itself is not this one's to repeat.
      self.state.withLock { state in
        guard state.session?.id == id else { return }
        state.authorization = nil
        state.running = id
        state.runningSaidEnd = false
      }
      await source.run(for: self)
      sessionEnded(id, byItself: !Task.isCancelled)
    }
    state.session = (id, task)
    return nil
  }

  /// Session `id` returned: by itself, or cancelled. Ended by itself, it ends every wait in
  /// ``waitForEnd()``; a listener that started wanting after it said it ended (and still
  /// wants) has the next session started for it.
  private func sessionEnded(_ id: Int, byItself: Bool) {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard state.session?.id == id else {
        // A session stopped earlier: what it said last (it may have reopened its device as it
        // was being stopped) says nothing of a session now.
        if state.session == nil { state.authorization = nil }
        return []
      }
      state.session = nil
      state.running = nil
      state.authorization = nil
      guard byItself else { return [] }
      defer { state.endWaiters.removeAll() }
      let late = state.wantedAfterEnd
      state.wantedAfterEnd = []
      if state.entries.contains(where: { late.contains($0.id) && $0.demands && !$0.interests.isEmpty }) {
        _ = followDemand(&state)
      } else {
        state.endedByItself = true
      }
      return Array(state.endWaiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns when the source ends by itself (a capture's end, a cause that cannot go away;
  /// at once if it has while someone still wants it), or when the task is cancelled. It
  /// wants nothing itself: a listener that serves the receiver awaits this.
  public func waitForEnd() async {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let ended = state.withLock { state -> Bool in
          if state.endedByItself || Task.isCancelled { return true }
          state.endWaiters[id] = continuation
          return false
        }
        if ended { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.endWaiters.removeValue(forKey: id) }?.resume()
    }
  }

  /// Returns once the last session that was stopped has closed its device (at once when none
  /// is closing).
  public func sessionClosed() async {
    await state.withLock { $0.closing }?.value
  }

  /// Keeps the session going until the task is cancelled or the source ends by itself: a
  /// listener that wants fixes and only waits. It returns once the session has stopped (its
  /// device closed, its settings restored) when it was the last to want it.
  public func run() async {
    let listener = listen(wanting: .fixes) { _ in }
    await waitForEnd()
    stopListening(listener)
    await sessionClosed()
  }

  /// Adds a listener: `handler` is called with every event it wants from now on, on the
  /// source's queue or task, and must not block. Joining a session already open, it first
  /// hears (here, at once) the session's last word on its authorization. `waitForRoom`, if
  /// given, is awaited by a source that prefers lossless delivery (a replay) before it goes
  /// on, so a listener with a queue of its own can slow a replay instead of dropping events.
  @discardableResult
  public func listen(
    wanting interests: Interests = .fixes, waitForRoom: (@Sendable () async -> Void)? = nil,
    _ handler: @escaping @Sendable (ReceiverEvent) -> Void
  ) -> Listener {
    add(Entry(id: 0, interests: interests, handler: handler, waitForRoom: waitForRoom))
  }

  /// Adds a listener that hears what it wants of a session others keep going, and keeps none
  /// going itself: a status page or a line on a terminal follows a receiver without holding
  /// its device open. ``stopListening(_:)`` takes it back.
  @discardableResult
  public func observe(wanting interests: Interests, _ handler: @escaping @Sendable (ReceiverEvent) -> Void) -> Listener {
    add(Entry(id: 0, interests: interests, demands: false, handler: handler))
  }

  private func add(_ entry: Entry) -> Listener {
    let handler = entry.handler
    let (listener, stopping, authorization) = state.withLock { state in
      var entry = entry
      entry.id = state.nextID
      state.nextID += 1
      state.entries.append(entry)
      state.updateInterests()
      // A new want starts the source again, even after it ended by itself (or as it ends).
      if entry.demands, !entry.interests.isEmpty {
        state.endedByItself = false
        if state.runningSaidEnd, state.running != nil { state.wantedAfterEnd.insert(entry.id) }
      }
      return (Listener(id: entry.id), followDemand(&state), state.authorization)
    }
    stopping?.cancel()
    // A session already open said so before this listener came (a gpsd server joining after
    // a clock feed): it hears it now, once. (An event the source publishes meanwhile may
    // reach it first.)
    if let authorization { handler(.status(.authorization(authorization))) }
    return listener
  }

  /// Removes a listener; it is called no more once this returns (unless an event is being
  /// delivered to it on another thread at this moment). When it was the last to want
  /// anything, the session stops; ``sessionClosed()`` returns once its device is closed.
  public func stopListening(_ listener: Listener) {
    let stopping = state.withLock { state in
      state.entries.removeAll { $0.id == listener.id }
      state.updateInterests()
      return followDemand(&state)
    }
    stopping?.cancel()
  }

  /// Changes what `listener` wants, from the next event on: a gpsd server wants sentences
  /// only while a client watches them; a location manager wants fixes only while it updates
  /// (wanting nothing, it no longer keeps the session going).
  public func update(_ listener: Listener, wanting interests: Interests) {
    let (stopping, replay) = state.withLock { state -> (Task<Void, Never>?, (@Sendable (ReceiverEvent) -> Void, AuthorizationStatus)?) in
      guard let index = state.entries.firstIndex(where: { $0.id == listener.id }) else { return (nil, nil) }
      let entry = state.entries[index]
      let startsWanting = entry.demands && entry.interests.isEmpty && !interests.isEmpty
      state.entries[index].interests = interests
      state.updateInterests()
      // Wanting again starts the source again, even after it ended by itself; and a listener
      // that starts wanting hears what an open session said of itself, as a new one does.
      if startsWanting {
        state.endedByItself = false
        if state.runningSaidEnd, state.running != nil { state.wantedAfterEnd.insert(listener.id) }
      }
      let replay = startsWanting ? state.authorization.map { (entry.handler, $0) } : nil
      return (followDemand(&state), replay)
    }
    stopping?.cancel()
    if let (handler, authorization) = replay { handler(.status(.authorization(authorization))) }
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
    let entries = state.withLock { state in
      switch event {
      case .lineSpeed(let speed): state.lineSpeed = speed
      case .status(.authorization(let status)): state.authorization = status
      case .status(.paused): state.authorization = nil
      case .status(.ended), .status(.stopped):
        state.authorization = nil
        if state.running != nil { state.runningSaidEnd = true }
      default: break
      }
      return state.entries
    }
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
