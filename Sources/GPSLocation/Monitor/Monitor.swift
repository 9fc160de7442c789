import FoundationEssentials
import Plumbing

/// Conditions on where the device is, and their events, as `CLMonitor`, kept across restarts.
///
/// ```swift
/// let monitor = try await Monitor.open("fences", for: receiver)
/// await monitor.add(.circle(center: home, radius: 100), identifier: "home")
/// for await event in monitor.events { print(event.identifier, event.state, event.date as Any) }
/// ```
///
/// A monitor is opened by name for a receiver (or a manager) and watches its fixes with the
/// engine's region judgement (hysteresis learnt from the receiver's scatter, dwell on fix
/// time), up to 100,000 conditions. Its conditions, their states and its unread events are
/// kept in one file, `NAME.monitor.json`, under its ``Storage`` (systemd's
/// `$STATE_DIRECTORY`, else `$XDG_STATE_HOME/gpsbridge`, else `~/.local/state/gpsbridge`),
/// replaced atomically, and written **before** an event is delivered. So after a restart:
///
/// - nothing is said again that was said before: a condition's first state after the restart
///   is an event only if it differs from the state kept;
/// - nothing is lost: a crossing that happened while the program was down is one event, at
///   the first fix that shows it, marked ``MonitorEvent/detectedAtStart``;
/// - an event kept but not read before a kill is delivered again, with its ``MonitorEvent/id``:
///   a reader that remembers the last id it handled drops it.
///
/// A file that cannot be read as a monitor's (damaged, another program's, another version) is
/// moved aside, never overwritten or deleted, and the monitor starts from unknown, saying so
/// in ``restoreNotice``. While a monitor is open its file is locked (`flock` on
/// `NAME.monitor.json.lock` beside it): a second monitor of the same name and directory, in
/// this process or another, is refused (``Error/Code/inUse``) rather than writing over it.
public actor Monitor {
  public nonisolated let name: String
  /// The events, in order: one reader. Events of a file's unread list come first.
  public nonisolated let events: Events
  /// What happened to the file found at opening, when it could not be used; `nil` when it
  /// was read, or there was none.
  public nonisolated let restoreNotice: String?
  /// Where the state is kept; `nil` for ``Storage/none``.
  public nonisolated let path: String?
  /// The last failure to keep the state (a disk that filled up after opening); events are
  /// still delivered, but a restart would not know of them.
  public private(set) var persistenceError: Error?

  private let manager: LocationManager
  private let file: StateFile?
  private var book: MonitorBook
  private let continuation: AsyncStream<MonitorEvent>.Continuation
  private let readThrough: Locked<UInt64>
  private var lastFixDate: Date?
  /// The book's revision the file holds: a book read from the file (or a new one) is written
  /// only once it changes.
  private var writtenRevision = 0
  private var reading: Task<Void, Never>?
  /// Closed: the file is no longer written.
  private var isClosed = false
  /// Whether the manager's visits are kept (`open(_:for:storage:keepingVisits:)`).
  private let keepsVisits: Bool
  /// Whether they have been started (with the first condition).
  private var visitsStarted = false
  /// The visit's last fix as last written.
  private var visitWrittenAt: Date?
  /// Seconds of fix time between writes of a stay's last fix.
  static let visitKeptEvery: TimeInterval = 60
  /// The engine's visit rules, by default: what a fix must be to go on with a kept stay.
  private static let stay = LocationEngine.Configuration()
  /// Events made and not yet delivered: each waits for a write that holds it.
  private var outbox: [MonitorEvent] = []
  /// Whether the monitor made its manager (`open(_:for: Receiver)`): only then does closing it
  /// stop the manager's location updates (a manager given to it may be updating for others).
  private let ownsManager: Bool

  /// Opens the monitor `name` for `receiver`, restoring what its file kept.
  /// - Throws: ``Error`` when the name is no file's, or the state can be neither read nor
  ///   written where it is kept; nothing is changed then.
  public static func open(
    _ name: String, for receiver: Receiver, storage: Storage = .standard, configuration: LocationEngine.Configuration = .init()
  ) async throws(Error) -> Monitor {
    try await open(
      name, manager: .receiver(receiver, configuration: configuration), storage: storage, ownsManager: true, keepsVisits: false)
  }

  /// Opens the monitor `name` over `manager`'s fixes: a `.replay(…)` (with ``Storage/none``,
  /// the same events every run) or, in tests, a `.controlled()` one. The manager is told to
  /// start updating locations (their times date the events; closing the monitor leaves them
  /// on, as they may be others' too) and to monitor the conditions as regions, so its
  /// `distanceFilter` and `desiredAccuracy` should let every fix through, and its delegate
  /// gets its region actions too.
  ///
  /// With `keepingVisits`, the manager's visits are monitored too (from the first condition
  /// on: at opening when the file has some, else at the first ``add(_:assuming:)``, of
  /// conditions or of none), and they are the monitor's events (``MonitorEvent/visit``), kept before they are
  /// delivered and numbered, as a condition's are; the stay in progress is kept in the
  /// monitor's file: after a restart it goes on, so its arrival is not reported again, and
  /// its departure, if it happened while the program was down, is reported at the first fix,
  /// dated the last fix of the stay that was kept (written at the arrival and once a minute of
  /// fix time after). The manager's delegate gets its `didVisit` actions too, as ever: a
  /// program that says the monitor's should leave those out. (Not in `CLMonitor`.)
  public static func open(
    _ name: String, for manager: LocationManager, storage: Storage = .standard, keepingVisits: Bool = false
  ) async throws(Error) -> Monitor {
    try await open(name, manager: manager, storage: storage, ownsManager: false, keepsVisits: keepingVisits)
  }

  private static func open(
    _ name: String, manager: LocationManager, storage: Storage, ownsManager: Bool, keepsVisits: Bool
  ) async throws(Error) -> Monitor {
    guard !name.isEmpty, !name.contains("/"), !name.hasPrefix("."), !name.contains("\0") else {
      throw Error(.invalidName, "'\(name)' cannot name a monitor: a name is a file's, without '/' and not starting with '.'.")
    }
    var book = MonitorBook()
    var notice: String?
    var file: StateFile?
    if let directory = try storage.path() {
      do throws(Errno) {
        try FileContents.makeDirectories(directory)
      } catch {
        throw Error(.cannotWrite, "Cannot make the directory \(directory) for the monitor's state: \(error). Choose another directory.")
      }
      let path = "\(directory)/\(name).monitor.json"
      let stateFile: StateFile
      do throws(Errno) {
        stateFile = try StateFile(locking: path)
      } catch {
        if error == .lockHeld {
          throw Error(
            .inUse,
            "The monitor's state \(path) is in use by another monitor of that name (another gpsbridge, or the same name twice in this one). Nothing was changed; stop the other, or choose another name or directory."
          )
        }
        throw Error(.cannotWrite, "Cannot make the monitor's lock \(path).lock: \(error). Nothing was changed; choose another directory.")
      }
      // (Locked: no other monitor's write is under way.)
      StateFile.removeUnfinished(path)
      file = stateFile
      var kept: [UInt8]?
      do throws(Errno) {
        kept = try FileContents.bytes(of: path, limit: 1 << 30)
      } catch {
        guard error == .noSuchFile else {
          throw Error(
            .cannotRead,
            "Cannot read the monitor's state \(path): \(error). Nothing was changed; give the user access to it, or choose another directory."
          )
        }
      }
      if let kept {
        switch MonitorFile.book(from: kept) {
        case .success(let restored):
          book = restored
          book.reopened()
        case .failure(let unreadable):
          var aside = ""
          do throws(Errno) {
            aside = try StateFile.moveAside(path)
          } catch {
            throw Error(
              .cannotWrite,
              "The monitor's state \(path) cannot be read: \(unreadable.reason); nor can it be moved aside: \(error). Nothing was changed.")
          }
          notice =
            "The monitor's state \(path) could not be read: \(unreadable.reason). It was moved to \(aside), and the monitor starts from unknown."
        }
      }
      // A directory where the state cannot be kept is found now, not at the first event.
      do throws(Errno) {
        try stateFile.checkWritable()
      } catch {
        throw Error(
          .cannotWrite,
          "Cannot write the monitor's state to \(path): \(error). Nothing was changed; make \(directory) writable, or choose another directory."
        )
      }
    }
    let monitor = Monitor(
      name: name, manager: manager, file: file, book: book, notice: notice, ownsManager: ownsManager, keepsVisits: keepsVisits)
    await monitor.start()
    return monitor
  }

  private init(
    name: String, manager: LocationManager, file: StateFile?, book: MonitorBook, notice: String?, ownsManager: Bool, keepsVisits: Bool
  ) {
    self.keepsVisits = keepsVisits
    var book = book
    // A stay kept by an earlier run that kept visits, when this one does not: it ends here
    // (nothing follows it), rather than being resumed stale by a later one.
    if !keepsVisits { book.visit = nil }
    self.visitWrittenAt = book.visit?.lastSeen
    self.name = name
    self.ownsManager = ownsManager
    self.manager = manager
    self.file = file
    self.path = file?.path
    self.book = book
    self.restoreNotice = notice
    let readThrough = Locked<UInt64>(0)
    self.readThrough = readThrough
    let (stream, continuation) = AsyncStream.makeStream(of: MonitorEvent.self, bufferingPolicy: .bufferingOldest(MonitorBook.unreadLimit))
    self.continuation = continuation
    let reads = WeakMonitor()
    events = Events(stream: stream, readThrough: readThrough) { Task { await reads.monitor?.keepReads() } }
    self.reads = reads
    // Kept but perhaps never read before the last stop: delivered again, with their ids.
    for event in book.unread { continuation.yield(event) }
  }

  /// The monitor as its events' reader knows it: weakly, so that dropping the monitor ends it.
  private final class WeakMonitor: @unchecked Sendable {
    weak var monitor: Monitor?
  }
  private let reads: WeakMonitor

  /// ``events`` for a reader that hands them on (to a broker, a webhook) and says itself when
  /// it has handled them, with ``acknowledge(through:)``, rather than by asking for the next:
  /// an event is forgotten only once whatever it was handed to has it, so a kill before that
  /// delivers it again at the next start, with its id. One reader of this or ``events``.
  public nonisolated var eventsAcknowledgedByReader: Events {
    Events(stream: events.stream, readThrough: events.readThrough, didRead: events.didRead, marksReadOnNext: false)
  }

  /// Every event up to the one with `id` is handled (by a reader of
  /// ``eventsAcknowledgedByReader``): the state forgets them, in a write of its own, or at
  /// ``close()`` at the latest (after it, the next opening delivers them again).
  public nonisolated func acknowledge(through id: UInt64) {
    readThrough.withLock { $0 = Swift.max($0, id) }
    events.didRead()
  }

  /// The reader has read events the file still holds as unread: it is written again, so that
  /// a restart does not deliver them again (a kill before this does, with their ids).
  private func keepReads() async {
    guard let first = book.unread.first, first.id <= readThrough.withLock({ $0 }) else { return }
    await persist()
  }

  private func start() async {
    reads.monitor = self
    // Subscribed before anything starts, so no decision is missed.
    let batches = manager.delegateBatches()
    reading = Task { [weak self] in
      for await batch in batches {
        guard let self else { return }
        await self.handle(batch)
      }
    }
    // The source starts with the first condition (a replay's first fix then meets them all),
    // and the visits with it.
    guard !book.records.isEmpty else { return }
    // Each in its kept state: a change from it needs the dwell, as while the program ran.
    let commands = book.records.sorted { $0.key < $1.key }.map { Self.command(for: $0.value, identifier: $0.key) }
    await manager.perform([.startUpdatingLocation] + startingVisits() + commands)
  }

  /// The command that starts the visits (resuming the stay kept), the first time only.
  private func startingVisits() -> [LocationManager.Command] {
    guard keepsVisits, !visitsStarted else { return [] }
    visitsStarted = true
    return [book.visit.map { .startMonitoringVisitsResuming($0) } ?? .startMonitoringVisits]
  }

  /// The last reference gone without ``close()``: the events end and the reading stops (the
  /// manager, if the monitor made it, goes with it).
  deinit {
    reading?.cancel()
    continuation.finish()
  }

  /// What stops the engine's region `identifier` (it goes by the identifier alone): no
  /// polygon's geometry worked out again to stop it.
  private static func stopping(_ identifier: String) -> Region {
    Region(identifier: identifier, center: LocationCoordinate2D(latitude: 0, longitude: 0), radius: 1)
  }

  /// The engine's command to watch `record`'s condition, from its state when it has one.
  private static func command(for record: MonitorRecord, identifier: String) -> LocationManager.Command {
    let region = record.condition.region(identifier: identifier)
    let state = RegionState(record.state)
    return state == .unknown ? .startMonitoringForRegion(region) : .startMonitoringForRegionAssuming(region, state)
  }

  /// Stops watching and ends ``events``, keeping the state with what has been read by now.
  /// Nothing is written after: an event acknowledged later is delivered again at the next
  /// opening (the file may be another monitor's by then).
  public func close() async {
    guard !isClosed else { return }
    reading?.cancel()
    reading = nil
    isClosed = true
    await persist(closing: true)
    // The file is another monitor's to open from now on.
    file?.release()
    await manager.perform(
      book.records.keys.map { .stopMonitoringForRegion(Self.stopping($0)) }
        + (visitsStarted ? [.stopMonitoringVisits] : []) + (ownsManager ? [.stopUpdatingLocation] : []))
    continuation.finish()
  }

  // MARK: Visits

  /// The stay in progress the monitor keeps, if any (see `open(_:for:storage:keepingVisits:)`).
  public var visitInProgress: VisitInProgress? { book.visit }

  // MARK: Conditions

  /// Watches `condition` under `identifier` (replacing a different condition of the same
  /// identifier; the same condition again keeps its record and state),
  /// its state assumed to be `state` until a fix decides it: an event comes only when the
  /// fixes say otherwise (`CLMonitor`'s `assuming:`). Kept before this returns.
  public func add(_ condition: MonitorCondition, identifier: String, assuming state: ConditionState = .unknown) async {
    await add([identifier: condition], assuming: state)
  }

  /// Watches many conditions at once, written once: the way to add thousands.
  /// A condition that cannot be watched (a bad centre or radius, a polygon of two corners, or
  /// one beyond the 100,000th) is not kept: it is an event with the state `unmonitored` and
  /// ``MonitorEvent/conditionUnsupported`` or ``MonitorEvent/conditionLimitExceeded``.
  public func add(_ conditions: [String: MonitorCondition], assuming state: ConditionState = .unknown) async {
    let maximumRadius = await manager.maximumRegionMonitoringDistance()
    var commands: [LocationManager.Command] = []
    var refused: [MonitorEvent] = []
    var stopped: [Region] = []
    for (identifier, condition) in conditions.sorted(by: { $0.key < $1.key }) {
      let region = condition.region(identifier: identifier)
      let replaces = book.records[identifier] != nil
      if region.problem(maximumRadius: maximumRadius) != nil {
        refused.append(book.fail(identifier, limitExceeded: false))
        if replaces { stopped.append(Self.stopping(identifier)) }
      } else if !replaces, book.records.count >= Self.conditionLimit {
        refused.append(book.fail(identifier, limitExceeded: true))
      } else if book.add(condition, identifier: identifier, assuming: state), let record = book.records[identifier] {
        // Only a new or changed condition goes to the engine: one it watches already keeps its
        // judgement (a pending dwell, a state decided with its margin).
        commands.append(Self.command(for: record, identifier: identifier))
      }
    }
    outbox += refused
    await persist()
    // The visits kept start with the first add, of conditions or of none.
    let starting = commands.isEmpty && (!keepsVisits || visitsStarted) ? [] : [.startUpdatingLocation] + startingVisits()
    guard !starting.isEmpty || !commands.isEmpty || !stopped.isEmpty else { return }
    await manager.perform(stopped.map { .stopMonitoringForRegion($0) } + starting + commands)
  }

  /// The most conditions a monitor watches: the engine's region limit.
  public static let conditionLimit = LocationEngine.Configuration().maximumRegionCount

  /// Stops watching the condition; its record goes (no event). Kept before this returns.
  public func remove(_ identifier: String) async {
    guard book.records[identifier] != nil else { return }
    book.remove(identifier)
    await persist()
    await manager.perform([.stopMonitoringForRegion(Self.stopping(identifier))])
  }

  /// The condition and its last event, as `CLMonitor.record(for:)`.
  public func record(for identifier: String) -> MonitorRecord? { book.records[identifier] }

  /// The identifiers of the conditions watched, sorted.
  public var identifiers: [String] { book.records.keys.sorted() }

  // MARK: Events

  private func handle(_ batch: [LocationManager.Action]) async {
    var made: [MonitorEvent] = []
    var visitChanged = false
    var ended = false
    for action in batch {
      switch action {
      case .didUpdateLocations(let locations):
        lastFixDate = locations.last?.timestamp ?? lastFixDate
        if book.firstFixSinceOpen == nil { book.firstFixSinceOpen = lastFixDate }
        if keepsVisits, var visit = book.visit {
          // The fixes that go on with the stay, as the engine's visits judge them by default:
          // slower than a walk and within the visit radius of its centre.
          for location in locations
          where location.decisiveSpeed < Self.stay.visitMaximumSpeed
            && location.coordinate.distance(to: visit.arrival.coordinate) <= Self.stay.visitRadius
          {
            visit.lastSeen = Swift.max(visit.lastSeen, location.timestamp)
            visit.fixes += 1
          }
          book.visit = visit
        }
      case .didVisit(let visit) where keepsVisits:
        // An event, kept before it is delivered; an arrival is kept until its departure, so
        // the stay goes on after a restart. Its centre weighs a fix a second since the arrival.
        let seconds = lastFixDate.map { Int(Swift.max(0, Swift.min($0.timeIntervalSince(visit.arrivalDate), 1e6))) } ?? 0
        made.append(book.visited(visit, at: lastFixDate, fixes: seconds + 1))
        visitWrittenAt = book.visit?.lastSeen
      case .didDetermineState(let state, let region):
        if let event = book.decide(region.identifier, ConditionState(state), at: lastFixDate) { made.append(event) }
      case .monitoringDidFail(let region?, let error) where book.records[region.identifier] != nil:
        made.append(book.fail(region.identifier, limitExceeded: error.code == .regionMonitoringDenied))
      case .didFailWithError(let error) where error.code == .endOfCapture:
        ended = true
      default:
        break
      }
    }
    outbox += made
    // A stay's last fix is kept once a minute of fix time too: a kill dates a departure found
    // at the next start at most that much early.
    if let visit = book.visit, let written = visitWrittenAt, visit.lastSeen.timeIntervalSince(written) >= Self.visitKeptEvery {
      visitWrittenAt = visit.lastSeen
      visitChanged = true
    }
    if !made.isEmpty || visitChanged { await persist() }
    if ended {
      // Every event made so far is kept (a write of another call's may still be under way:
      // this one waits for it) before the stream ends.
      await persist()
      deliverKept(through: .max)
      continuation.finish()
    }
  }

  /// Writes the book, forgetting the events read by now.
  /// Then delivers the events made so far that the write holds, in id order: an event goes
  /// out only once a write that holds it is done (a later write's event waits for that one,
  /// even when an earlier call's write is still under way).
  private func persist(closing: Bool = false) async {
    book.read(through: readThrough.withLock { $0 })
    let holds = book.nextEventID - 1
    // Once closed, only a close writes: the file may be a new monitor's by then.
    guard let file, book.revision != writtenRevision, closing || !isClosed else { return deliverKept(through: holds) }
    let revision = book.revision
    do throws(Errno) {
      try await file.write(MonitorFile.encoded(name: name, book: book))
      writtenRevision = Swift.max(writtenRevision, revision)
      persistenceError = nil
    } catch {
      persistenceError = Error(.cannotWrite, "Cannot write the monitor's state to \(file.path): \(error).")
    }
    deliverKept(through: holds)
  }

  /// Yields the outbox's events up to `id`, oldest first.
  private func deliverKept(through id: UInt64) {
    outbox.sort { $0.id < $1.id }
    let ready = outbox.prefix { $0.id <= id }
    for event in ready { continuation.yield(event) }
    outbox.removeFirst(ready.count)
  }

  /// The monitor's events: `CLMonitor.Events`. One reader; it ends when the monitor is closed
  /// or a replay's capture ends.
  public struct Events: AsyncSequence, Sendable {
    public typealias Element = MonitorEvent
    public typealias Failure = Never
    let stream: AsyncStream<MonitorEvent>
    let readThrough: Locked<UInt64>
    let didRead: @Sendable () -> Void
    /// Whether asking for the next event says the last one handled (else the reader says it).
    var marksReadOnNext = true

    public func makeAsyncIterator() -> Iterator {
      Iterator(events: stream.makeAsyncIterator(), readThrough: readThrough, didRead: didRead, marksReadOnNext: marksReadOnNext)
    }

    public struct Iterator: AsyncIteratorProtocol {
      var events: AsyncStream<MonitorEvent>.Iterator
      let readThrough: Locked<UInt64>
      let didRead: @Sendable () -> Void
      let marksReadOnNext: Bool
      /// The event returned last: handled once the reader asks for the next one.
      var handed: UInt64? = nil

      public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> MonitorEvent? {
        // The reader is done with the last event only when it asks for another (a kill while
        // it handles one delivers that one again): from now on the state forgets it.
        if marksReadOnNext, let handed {
          readThrough.withLock { $0 = Swift.max($0, handed) }
          didRead()
          self.handed = nil
        }
        guard let event = await events.next(isolation: actor) else { return nil }
        handed = event.id
        return event
      }

      public mutating func next() async -> MonitorEvent? { await next(isolation: nil) }
    }
  }
}
