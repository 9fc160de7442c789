import FoundationEssentials

/// A monitor's state, with no I/O: its records, the next event's id and the events not yet
/// read, which is everything its file holds. The engine decides states; the book turns a
/// decided state into an event only when it differs from the one recorded, which is how a
/// restart neither repeats the last crossing nor loses one that happened while it was down.
package struct MonitorBook: Hashable, Sendable {
  package var records: [String: MonitorRecord] = [:]
  package var nextEventID: UInt64 = 1
  /// Events made but not yet read from the monitor's stream, oldest first: delivered again
  /// after a restart (with their ids), since a kill may have come before they were read.
  package var unread: [MonitorEvent] = []
  /// Conditions restored from a file (or added with an assumed state) that have not changed
  /// since the monitor opened: their first change, if it comes within ``startWindow`` of the
  /// first fix, is ``MonitorEvent/detectedAtStart``.
  package var undecidedSinceOpen: Set<String> = []
  /// The time of the first fix since the monitor opened.
  package var firstFixSinceOpen: Date?
  /// Seconds of fix time from the first fix after opening within which a change from a kept
  /// state counts as found at the start: the engine starts a kept condition in its kept state,
  /// so a change needs two agreeing fixes (`regionDwellFromKnownState`), after the estimate has
  /// settled beyond the margin (a few fixes).
  package static let startWindow: TimeInterval = 15
  /// The manager's visit in progress, when the monitor keeps its visits: resumed after a
  /// restart so that its arrival is not said again and its departure not lost.
  package var visit: VisitInProgress? {
    didSet { if visit != oldValue { revision += 1 } }
  }
  /// Counts the changes to what the file holds: a monitor writes only when it moved.
  package private(set) var revision = 0

  package init() {}

  /// The most events kept unread: beyond them the oldest go (each condition's record keeps
  /// its last event whatever happens).
  package static let unreadLimit = 100_000

  /// Records `condition` (replacing one of the same identifier) with the state assumed. The
  /// same condition added again keeps its record: a program that adds its conditions at each
  /// start keeps what the last run knew of them.
  /// Returns whether the record changed (a new condition, or another under the identifier).
  @discardableResult
  package mutating func add(_ condition: MonitorCondition, identifier: String, assuming state: ConditionState) -> Bool {
    guard records[identifier]?.condition != condition else { return false }
    revision += 1
    records[identifier] = MonitorRecord(condition: condition, state: state)
    if state == .unknown { undecidedSinceOpen.remove(identifier) } else { undecidedSinceOpen.insert(identifier) }
    return true
  }

  package mutating func remove(_ identifier: String) {
    if records.removeValue(forKey: identifier) != nil { revision += 1 }
    undecidedSinceOpen.remove(identifier)
  }

  /// The engine decided `state` for `identifier` at the fix of `date`: the event, when that
  /// changes the record.
  package mutating func decide(_ identifier: String, _ state: ConditionState, at date: Date?) -> MonitorEvent? {
    // "Unknown" decides nothing: the engine says it of every condition it starts on; nor does
    // the kept state said again.
    guard state != .unknown, var record = records[identifier], state != record.state else { return nil }
    let wasUndecided = undecidedSinceOpen.remove(identifier) != nil
    let soon = zip(date, firstFixSinceOpen).map { $0.timeIntervalSince($1) <= Self.startWindow } ?? true
    let event = MonitorEvent(
      id: nextEventID, identifier: identifier, state: state, previousState: record.state, date: date,
      detectedAtStart: wasUndecided && soon)
    record.state = state
    record.lastEvent = event
    records[identifier] = record
    remember(event)
    return event
  }

  /// The engine reported `visit` at the fix of `date`: the event, and the stay in progress
  /// as it now is (`fixes` weights a new arrival's centre).
  package mutating func visited(_ visit: Visit, at date: Date?, fixes: Int) -> MonitorEvent {
    // (A fix at or after the arrival: the monitor's last fix may be older, when its manager
    // held some back.)
    let lastSeen = max(date ?? visit.arrivalDate, visit.arrivalDate)
    self.visit = visit.isDeparture ? nil : VisitInProgress(arrival: visit, lastSeen: lastSeen, fixes: max(1, fixes))
    let event = MonitorEvent(id: nextEventID, identifier: "", state: .unknown, date: date, visit: visit)
    remember(event)
    return event
  }

  /// A condition the engine could not monitor: it leaves the book, and says why.
  package mutating func fail(_ identifier: String, limitExceeded: Bool) -> MonitorEvent {
    let event = MonitorEvent(
      id: nextEventID, identifier: identifier, state: .unmonitored, previousState: records[identifier]?.state ?? .unknown, date: nil,
      conditionUnsupported: !limitExceeded,
      conditionLimitExceeded: limitExceeded)
    remove(identifier)
    remember(event)
    return event
  }

  private mutating func remember(_ event: MonitorEvent) {
    revision += 1
    nextEventID = event.id + 1
    unread.append(event)
    if unread.count > Self.unreadLimit { unread.removeFirst(unread.count - Self.unreadLimit) }
  }

  /// The reader has had every event up to `id`.
  package mutating func read(through id: UInt64) {
    guard let first = unread.first, first.id <= id else { return }
    revision += 1
    unread.removeFirst(unread.firstIndex { $0.id > id } ?? unread.count)
  }

  /// The book as opened after a restart: every record is undecided until a fix says.
  package mutating func reopened() {
    undecidedSinceOpen = Set(records.keys)
    firstFixSinceOpen = nil
  }
}

/// Both values, when both are there.
private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
  guard let a, let b else { return nil }
  return (a, b)
}
