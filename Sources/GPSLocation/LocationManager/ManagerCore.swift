import NMEA
import Plumbing

/// The one object behind a live or replay `LocationManager`: it owns the engine, listens to
/// the receiver, wants its fixes while the engine needs them (which keeps the receiver's
/// session going) and nothing after, and turns the injected clock into `requestLocation`
/// timeouts. The manager's closures only
/// forward here.
///
/// The receiver's events reach the engine on the source's own queue, under the engine's lock,
/// with no hop: a fix becomes actions on the delegate streams as soon as it is assembled.
/// Starting and stopping the source and the timer are the actor's.
actor ManagerCore<C: Clock> where C.Duration == Duration {
  let receiver: Receiver
  let clock: C
  let origin: C.Instant
  let broadcaster = Broadcaster<LocationManager.Action>()
  /// What both the listener and the actor touch.
  private let state: Locked<State>
  /// The core's listener: it wants fixes while the engine needs them, else nothing (it still
  /// hears the session's status).
  private let listener: Receiver.Listener
  private var timerTask: Task<Void, Never>?

  struct State {
    var engine: LocationEngine
    var authorization: AuthorizationStatus
    /// Which run of the source is the current one: the end of a run that was already stopped
    /// changes nothing. (Events after a stop are ignored by `running`.)
    var generation = 0
    var sourceEnded = false
    /// What the receiver last said of its signals, as told to the delegates.
    var integrity: SignalIntegrity?
    /// The error that stopped the source for good, if one did (not a capture's end): trying
    /// authorization again may start it afresh.
    var stoppedBy: LocationManager.Error?
    /// The source's latest problem since its last fix or resume: the reason given when a
    /// location request times out.
    var lastProblem: LocationManager.Error?
    /// What the actor last arranged: whether the source runs, and the timer's deadline. When
    /// the engine wants otherwise after an event, the actor is asked to catch up.
    var running = false
    var timerDeadline: Duration?
    /// The actions of the fix being handled, reused from one fix to the next.
    var actions: [LocationManager.Action] = []

    var needsReconcile: Bool {
      (engine.needsSource && !sourceEnded) != running || engine.nextDeadline != timerDeadline
    }
  }

  init(receiver: Receiver, configuration: LocationEngine.Configuration, clock: C) {
    self.receiver = receiver
    self.clock = clock
    self.origin = clock.now
    var engine = LocationEngine(configuration: configuration)
    if receiver.source.isSimulated { engine.sourceInformation = .simulated }
    self.state = Locked(State(engine: engine, authorization: receiver.source.initialAuthorization))
    let broadcaster = self.broadcaster
    let waitForRoom: (@Sendable () async -> Void)? =
      receiver.source.prefersLosslessDelivery ? { @Sendable in await broadcaster.waitForRoom() } : nil
    // The engine's work needs only the state and the broadcaster; the core itself is asked
    // (weakly) only when the source or the timer must change.
    let weakCore = WeakCore()
    let state = self.state
    listener = receiver.listen(wanting: [], waitForRoom: waitForRoom) { event in
      guard Self.receive(event, state, broadcaster), let core = weakCore.core else { return }
      Task { await core.reconcile() }
    }
    weakCore.core = self
  }

  /// The core as its receiver's listener knows it: weakly, so the last manager value going
  /// away still stops everything.
  private final class WeakCore: @unchecked Sendable {
    weak var core: ManagerCore?
  }

  var now: Duration { origin.duration(to: clock.now) }

  /// Reads the engine.
  nonisolated func engine<Value>(_ read: (LocationEngine) -> Value) -> Value {
    state.withLock { read($0.engine) }
  }

  nonisolated var authorization: AuthorizationStatus { state.withLock { $0.authorization } }

  /// Runs commands against the engine as one step, broadcasts what they say, and adjusts the
  /// source and the timer to what the engine needs now. Commands that stop the source return
  /// once the source has stopped (a device closed, its settings restored).
  func perform(_ commands: [LocationManager.Command]) async {
    let now = self.now
    state.withLock { state in
      var actions: [LocationManager.Action] = []
      for command in commands { state.engine.perform(command, now: now, into: &actions) }
      Self.flush(&state, broadcaster)
      broadcaster.yield(contentsOf: actions)
    }
    if let stopping = reconcile() { await stopping.value }
  }

  /// Answers `requestState(for:)`: it changes nothing.
  nonisolated func requestState(for region: Region) {
    state.withLock { state in
      Self.flush(&state, broadcaster)
      broadcaster.yield(contentsOf: state.engine.requestState(for: region))
    }
  }

  func requestAuthorization() async {
    let status = await receiver.source.checkAuthorization()
    state.withLock { state in
      state.authorization = status
      Self.flush(&state, broadcaster)
      broadcaster.yield(.didChangeAuthorization(status))
      if state.stoppedBy != nil, status == .authorizedAlways || status == .authorizedWhenInUse {
        state.stoppedBy = nil
        state.sourceEnded = false
      }
    }
    reconcile()
  }

  /// One event from the receiver, on its source's queue; whether the actor must catch up
  /// (start or stop the source, set the timer).
  private static func receive(_ event: ReceiverEvent, _ state: Locked<State>, _ broadcaster: Broadcaster<LocationManager.Action>) -> Bool {
    state.withLock { state -> Bool in
      guard state.running else { return false }
      switch event {
      case .fix(let fix):
        state.lastProblem = nil
        let answers = state.engine.hasPendingRequests
        state.engine.handle(fix, into: &state.actions)
        // Gathered until the source flushes, so a fast replay wakes readers once a piece.
        if state.actions.count >= gatheredActions { flush(&state, broadcaster) }
        // Only answering a request can change what the actor arranged.
        guard answers else { return false }
      case .flush:
        flush(&state, broadcaster)
      case .status(let status):
        flush(&state, broadcaster)
        receive(status, &state, broadcaster)
      case .integrity(let integrity):
        // With the locations, in order: it holds for those after it. A change of the jamming
        // indicator alone (it moves every second) is no news.
        guard !(state.integrity.map { integrity.saysTheSameStates(as: $0) } ?? false) else { return false }
        state.integrity = integrity
        state.actions.append(.didChangeSignalIntegrity(integrity))
        return false
      case .attempt:
        // The source opens its device or capture again: its times start over.
        state.engine.sourceRestarted()
        return false
      case .bytes, .sentence, .frame, .notice, .rejected, .lineSpeed:
        return false
      }
      return state.needsReconcile
    }
  }

  /// At most this many actions wait for the source's next flush.
  static var gatheredActions: Int { 256 }

  private static func flush(_ state: inout State, _ broadcaster: Broadcaster<LocationManager.Action>) {
    guard !state.actions.isEmpty else { return }
    broadcaster.yield(contentsOf: state.actions)
    state.actions.removeAll(keepingCapacity: true)
  }

  private static func receive(_ status: SourceEvent, _ state: inout State, _ broadcaster: Broadcaster<LocationManager.Action>) {
    switch status {
    case .authorization(let status):
      guard status != state.authorization else { return }
      state.authorization = status
      broadcaster.yield(.didChangeAuthorization(status))
    case .paused(let reason):
      let error = LocationManager.Error(reason)
      state.lastProblem = error
      broadcaster.yield(contentsOf: [.didPauseLocationUpdates, .didFailWithError(error)])
    case .resumed:
      state.lastProblem = nil
      broadcaster.yield(.didResumeLocationUpdates)
    case .failed(let reason):
      let error = LocationManager.Error(reason)
      state.lastProblem = error
      broadcaster.yield(.didFailWithError(error))
    case .ended(let reason):
      // Nothing went away, so no pause: one error says the capture is over, and the delegate
      // streams end after it, so a `for await` over a replay ends by itself.
      state.sourceEnded = true
      broadcaster.yield(contentsOf: state.engine.sourceEnded() + [.didFailWithError(LocationManager.Error(reason))])
      broadcaster.finish()
    case .stopped(let reason):
      // One error says why; requests still waiting are answered with it (once).
      let error = LocationManager.Error(reason)
      state.sourceEnded = true
      state.stoppedBy = error
      broadcaster.yield(
        contentsOf: [.didFailWithError(error)] + state.engine.sourceEnded(cause: error).filter { $0 != .didFailWithError(error) })
    }
  }

  /// Starts the source when the engine needs it and stops it when not; sets the timer for
  /// the engine's next deadline. Returns the source's task when it was just cancelled.
  private enum Change { case start, stop, none }

  @discardableResult
  fileprivate func reconcile() -> Task<Void, Never>? {
    let (change, deadline): (Change, Duration?) = state.withLock { state in
      var change = Change.none
      let wantsSource = state.engine.needsSource && !state.sourceEnded
      if wantsSource, !state.running {
        state.generation += 1
        state.running = true
        change = .start
      } else if !wantsSource, state.running {
        // Not needed any more, or it ended by itself (its end was heard).
        // What the source's last fixes caused goes out before the source stops.
        Self.flush(&state, broadcaster)
        state.generation += 1
        state.running = false
        change = .stop
      }
      let deadline = state.engine.nextDeadline
      guard deadline != state.timerDeadline else { return (change, state.timerDeadline) }
      state.timerDeadline = deadline
      return (change, deadline)
    }
    var stopping: Task<Void, Never>?
    switch change {
    case .start:
      receiver.update(listener, wanting: .fixes)
    case .stop:
      receiver.update(listener, wanting: [])
      let receiver = self.receiver
      stopping = Task { await receiver.sessionClosed() }
    case .none:
      break
    }
    setTimer(deadline)
    return stopping
  }

  private var armedDeadline: Duration?

  private func setTimer(_ deadline: Duration?) {
    guard deadline != armedDeadline else { return }
    armedDeadline = deadline
    timerTask?.cancel()
    timerTask = nil
    guard let deadline else { return }
    let wake = origin.advanced(by: deadline)
    let clock = self.clock
    timerTask = Task { [weak self] in
      do {
        try await clock.sleep(until: wake, tolerance: nil)
      } catch {
        return
      }
      await self?.timerFired()
    }
  }

  private func timerFired() {
    let now = self.now
    armedDeadline = nil
    timerTask = nil
    state.withLock { state in
      state.timerDeadline = nil
      Self.flush(&state, broadcaster)
      broadcaster.yield(contentsOf: state.engine.advance(to: now, cause: state.lastProblem))
    }
    reconcile()
  }

  /// The last manager value is gone: stop wanting the source (the receiver closes the device
  /// when nobody else wants it) and the timer, and end the delegate streams.
  deinit {
    receiver.stopListening(listener)
    timerTask?.cancel()
    broadcaster.finish()
  }
}

extension LocationManager {
  /// A manager over a `Receiver`: how `.serial`, `.gpsd` and `.replay` are built, and how to
  /// plug in a source of your own (any `ByteSource`). The manager wants the receiver's fixes
  /// while it needs locations, which keeps its session going; the receiver's other listeners
  /// hear it meanwhile.
  public static func receiver(
    _ receiver: Receiver,
    configuration: LocationEngine.Configuration = .init(),
    clock: some Clock<Duration> = ContinuousClock()
  ) -> LocationManager {
    let core = ManagerCore(receiver: receiver, configuration: configuration, clock: clock)
    var manager = LocationManager()
    manager.accuracyAuthorization = { .fullAccuracy }
    manager.authorizationStatus = { core.authorization }
    manager.delegate = { core.broadcaster.subscribe() }
    manager.delegateBatches = { core.broadcaster.subscribeArrays() }
    manager.heading = { core.engine(\.heading) }
    manager.headingAvailable = { true }
    manager.location = { core.engine(\.location) }
    manager.locationServicesEnabled = { await receiver.source.isPresent() }
    manager.maximumRegionMonitoringDistance = { configuration.maximumRegionRadius }
    manager.monitoredRegions = { core.engine(\.monitoredRegions) }
    manager.perform = { commands in await core.perform(commands) }
    manager.requestAlwaysAuthorization = { await core.requestAuthorization() }
    manager.requestLocation = { await core.perform([.requestLocation]) }
    manager.requestState = { region in core.requestState(for: region) }
    manager.requestWhenInUseAuthorization = { await core.requestAuthorization() }
    manager.set = { properties in await core.perform([.set(properties)]) }
    manager.significantLocationChangeMonitoringAvailable = { true }
    manager.statistics = { core.engine(\.statistics) }
    manager.startMonitoringForRegion = { region in await core.perform([.startMonitoringForRegion(region)]) }
    manager.startMonitoringSignificantLocationChanges = { await core.perform([.startMonitoringSignificantLocationChanges]) }
    manager.startMonitoringVisits = { await core.perform([.startMonitoringVisits]) }
    manager.startUpdatingHeading = { await core.perform([.startUpdatingHeading]) }
    manager.startUpdatingLocation = { await core.perform([.startUpdatingLocation]) }
    manager.stopMonitoringForRegion = { region in await core.perform([.stopMonitoringForRegion(region)]) }
    manager.stopMonitoringSignificantLocationChanges = { await core.perform([.stopMonitoringSignificantLocationChanges]) }
    manager.stopMonitoringVisits = { await core.perform([.stopMonitoringVisits]) }
    manager.stopUpdatingHeading = { await core.perform([.stopUpdatingHeading]) }
    manager.stopUpdatingLocation = { await core.perform([.stopUpdatingLocation]) }
    return manager
  }

  /// A manager over any `ByteSource`: ``receiver(_:configuration:clock:)`` with a receiver
  /// of its own.
  public static func source(
    _ source: any ByteSource,
    configuration: LocationEngine.Configuration = .init(),
    clock: some Clock<Duration> = ContinuousClock()
  ) -> LocationManager {
    receiver(Receiver(source), configuration: configuration, clock: clock)
  }
}
