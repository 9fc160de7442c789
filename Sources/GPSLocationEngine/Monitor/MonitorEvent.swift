import FoundationEssentials

/// A change of a condition's state, as `CLMonitor.Event`, with what Apple's lacks for a box
/// that must neither repeat nor lose one across a restart: an ``id`` and the fix's ``date``.
public struct MonitorEvent: Hashable, Sendable, Codable {
  /// Increases by one with each event of the monitor, and survives restarts: an event
  /// delivered again after a kill (persisted, then killed before it was read) carries the
  /// id it had, so a reader that remembers the last id it handled drops the repeat.
  public var id: UInt64
  /// The condition's identifier.
  public var identifier: String
  public var state: ConditionState
  /// The state before: `unknown` for a condition's first decision (not a crossing), the other
  /// state for a crossing (an entry is `unsatisfied` to `satisfied`).
  public var previousState: ConditionState
  /// The time of the fix that decided the change (the receiver's clock, not the time it was
  /// delivered); `nil` only for a change no fix decided (a condition that cannot be monitored).
  public var date: Date?
  /// Decided within 15 s of the first fix after the monitor opened, from a state persisted
  /// before it closed (or assumed when the condition was added before that fix): the crossing
  /// happened while the program was down, somewhere between the last event before and
  /// ``date``. (A condition added later with an assumed state does not get this flag.)
  public var detectedAtStart: Bool
  /// The condition cannot be monitored (a bad centre or radius, a polygon with fewer than
  /// three corners): `CLMonitor`'s `conditionUnsupported`.
  public var conditionUnsupported: Bool
  /// The monitor holds as many conditions as it can (100,000): `conditionLimitExceeded`.
  public var conditionLimitExceeded: Bool
  /// A visit's arrival or departure, in a monitor that keeps its manager's visits (then the
  /// ``identifier`` is empty and both states are `unknown`): kept before it is delivered and
  /// numbered, as a condition's events are. (Not in `CLMonitor`.)
  public var visit: Visit?

  public init(
    id: UInt64, identifier: String, state: ConditionState, previousState: ConditionState = .unknown, date: Date?,
    detectedAtStart: Bool = false,
    conditionUnsupported: Bool = false, conditionLimitExceeded: Bool = false, visit: Visit? = nil
  ) {
    self.visit = visit
    self.id = id
    self.identifier = identifier
    self.state = state
    self.previousState = previousState
    self.date = date
    self.detectedAtStart = detectedAtStart
    self.conditionUnsupported = conditionUnsupported
    self.conditionLimitExceeded = conditionLimitExceeded
  }

  /// Whether the device crossed the condition's edge (not a first decision).
  public var isCrossing: Bool { previousState != .unknown && previousState != .unmonitored && state != previousState }
}

/// What a monitor holds of one condition, as `CLMonitor.Record`.
public struct MonitorRecord: Hashable, Sendable, Codable {
  public var condition: MonitorCondition
  /// The state last decided (or assumed when the condition was added).
  public var state: ConditionState
  /// The last event of the condition, if it had one.
  public var lastEvent: MonitorEvent?

  public init(condition: MonitorCondition, state: ConditionState, lastEvent: MonitorEvent? = nil) {
    self.condition = condition
    self.state = state
    self.lastEvent = lastEvent
  }
}
