import NMEA
import Plumbing

/// The one actor behind a live or replay `LocationManager`: owns the engine, starts the
/// source while the engine needs it and stops it after, and turns the injected clock into
/// `requestLocation` timeouts. The manager's closures only forward here.
actor ManagerCore<C: Clock> where C.Duration == Duration {
  let source: any FixSource
  let clock: C
  let origin: C.Instant
  let broadcaster = Broadcaster<LocationManager.Action>()
  private(set) var engine: LocationEngine
  private(set) var authorization: AuthorizationStatus
  private var sourceTask: Task<Void, Never>?
  private var sourceGeneration = 0
  private var timerTask: Task<Void, Never>?
  private var timerDeadline: Duration?
  private var sourceEnded = false
  /// The error that stopped the source for good, if one did (not a capture's end): trying
  /// authorization again may start it afresh.
  private var stoppedBy: LocationManager.Error?
  /// The source's latest problem since its last fix or resume: the reason given when a
  /// location request times out.
  private var lastProblem: LocationManager.Error?
  /// The actions of the fixes being handled, reused from one batch to the next.
  private var fixActions: [LocationManager.Action] = []

  init(source: any FixSource, configuration: LocationEngine.Configuration, clock: C) {
    self.source = source
    self.clock = clock
    self.origin = clock.now
    self.engine = LocationEngine(configuration: configuration)
    self.authorization = source.initialAuthorization
  }

  var now: Duration { origin.duration(to: clock.now) }

  /// Runs a command against the engine, broadcasts what it says, and adjusts the source
  /// and the timer to what the engine needs now. A command that stops the source returns
  /// once the source has stopped (a device closed, its settings restored).
  func perform(_ command: (inout LocationEngine, Duration) -> [LocationManager.Action]) async {
    let actions = command(&engine, now)
    emit(actions)
    if let stopping = reconcile() { await stopping.value }
  }

  /// ``perform(_:)`` for a command that emits nothing of its own.
  func update(_ command: (inout LocationEngine) -> Void) async {
    await perform { engine, _ in
      command(&engine)
      return []
    }
  }

  func requestAuthorization() async {
    let status = await source.checkAuthorization()
    authorization = status
    emit([.didChangeAuthorization(status)])
    if stoppedBy != nil, status == .authorizedAlways || status == .authorizedWhenInUse {
      stoppedBy = nil
      sourceEnded = false
    }
    reconcile()
  }

  private func emit(_ actions: [LocationManager.Action]) {
    broadcaster.yield(contentsOf: actions)
  }

  /// Hands fixes to the engine and broadcasts all they cause at once.
  private func handle(_ fixes: some Sequence<Fix>) async {
    lastProblem = nil
    for fix in fixes { engine.handle(fix, into: &fixActions) }
    broadcaster.yield(contentsOf: fixActions)
    fixActions.removeAll(keepingCapacity: true)
    if source.prefersLosslessDelivery { await broadcaster.waitForRoom() }
  }

  private func receive(_ event: SourceEvent, generation: Int) async {
    guard generation == sourceGeneration else { return }
    switch event {
    case .fix(let fix):
      await handle(CollectionOfOne(fix))
    case .fixes(let fixes):
      await handle(fixes)
    case .authorization(let status):
      guard status != authorization else { break }
      authorization = status
      emit([.didChangeAuthorization(status)])
    case .paused(let error):
      lastProblem = error
      emit([.didPauseLocationUpdates, .didFailWithError(error)])
    case .resumed:
      lastProblem = nil
      emit([.didResumeLocationUpdates])
    case .failed(let error):
      lastProblem = error
      emit([.didFailWithError(error)])
    case .ended(let error):
      // Nothing went away, so no pause: one error says the capture is over.
      sourceEnded = true
      emit(engine.sourceEnded() + [.didFailWithError(error)])
    case .stopped(let error):
      // One error says why; requests still waiting are answered with it (once).
      sourceEnded = true
      stoppedBy = error
      emit([.didFailWithError(error)] + engine.sourceEnded(cause: error).filter { $0 != .didFailWithError(error) })
    }
    reconcile()
  }

  private func sourceFinished(generation: Int) {
    guard generation == sourceGeneration else { return }
    sourceTask = nil
  }

  /// Starts the source when the engine needs it and stops it when not; sets the timer for
  /// the engine's next deadline. Returns the source's task when it was just cancelled.
  @discardableResult
  private func reconcile() -> Task<Void, Never>? {
    var stopping: Task<Void, Never>?
    if engine.needsSource, sourceTask == nil, !sourceEnded {
      sourceGeneration += 1
      let generation = sourceGeneration
      let source = self.source
      sourceTask = Task { [weak self] in
        await source.run { [weak self] event in await self?.receive(event, generation: generation) }
        await self?.sourceFinished(generation: generation)
      }
    } else if !engine.needsSource, let task = sourceTask {
      task.cancel()
      stopping = task
      sourceTask = nil
      sourceGeneration += 1
    }
    let deadline = engine.nextDeadline
    if deadline != timerDeadline {
      timerTask?.cancel()
      timerDeadline = deadline
      if let deadline {
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
    }
    return stopping
  }

  private func timerFired() {
    timerDeadline = nil
    timerTask = nil
    emit(engine.advance(to: now, cause: lastProblem))
    reconcile()
  }

  /// The last manager value is gone: stop the source (closing the device) and the timer,
  /// and end the delegate streams.
  deinit {
    sourceTask?.cancel()
    timerTask?.cancel()
    broadcaster.finish()
  }
}

extension LocationManager {
  /// A manager over any ``FixSource``: how `.serial`, `.gpsd` and `.replay` are built, and
  /// how to plug in a source of your own.
  public static func source(
    _ source: any FixSource,
    configuration: LocationEngine.Configuration = .init(),
    clock: some Clock<Duration> = ContinuousClock()
  ) -> LocationManager {
    let core = ManagerCore(source: source, configuration: configuration, clock: clock)
    var manager = LocationManager()
    manager.accuracyAuthorization = { .fullAccuracy }
    manager.authorizationStatus = { await core.authorization }
    manager.delegate = { core.broadcaster.subscribe() }
    manager.heading = { await core.engine.heading }
    manager.headingAvailable = { true }
    manager.location = { await core.engine.location }
    manager.locationServicesEnabled = { await source.isPresent() }
    manager.maximumRegionMonitoringDistance = { configuration.maximumRegionRadius }
    manager.monitoredRegions = { await core.engine.monitoredRegions }
    manager.requestAlwaysAuthorization = { await core.requestAuthorization() }
    manager.requestLocation = {
      await core.perform { engine, now in
        engine.requestLocation(now: now); return []
      }
    }
    manager.requestState = { region in await core.perform { engine, _ in engine.requestState(for: region) } }
    manager.requestWhenInUseAuthorization = { await core.requestAuthorization() }
    manager.set = { properties in await core.update { $0.set(properties) } }
    manager.significantLocationChangeMonitoringAvailable = { true }
    manager.startMonitoringForRegion = { region in await core.perform { engine, _ in engine.startMonitoring(region) } }
    manager.startMonitoringSignificantLocationChanges = { await core.update { $0.startMonitoringSignificantLocationChanges() } }
    manager.startMonitoringVisits = { await core.update { $0.startMonitoringVisits() } }
    manager.startUpdatingHeading = { await core.update { $0.startUpdatingHeading() } }
    manager.startUpdatingLocation = { await core.update { $0.startUpdatingLocation() } }
    manager.stopMonitoringForRegion = { region in await core.update { $0.stopMonitoring(region) } }
    manager.stopMonitoringSignificantLocationChanges = { await core.update { $0.stopMonitoringSignificantLocationChanges() } }
    manager.stopMonitoringVisits = { await core.update { $0.stopMonitoringVisits() } }
    manager.stopUpdatingHeading = { await core.update { $0.stopUpdatingHeading() } }
    manager.stopUpdatingLocation = { await core.update { $0.stopUpdatingLocation() } }
    manager.core = CoreAccess(
      subscribe: { core.broadcaster.subscribeBatches() },
      perform: { command in await core.perform(command) },
      withheld: { await core.engine.withheld })
    return manager
  }

  /// What the command line uses besides the public closures.
  package struct CoreAccess: Sendable {
    /// Subscribes to the actions a batch at a time: everything that is ready when the
    /// reader asks, so a fast replay is read in large batches and a live source's actions
    /// one by one as they happen.
    package var subscribe: @Sendable () -> Broadcaster<Action>.Subscription
    /// Runs several commands as one step of the manager, so nothing the source reports
    /// lands between them (the source starts after the last), and a replay gives the same
    /// actions every time without waiting for stragglers.
    package var perform: @Sendable (@Sendable (inout LocationEngine, Duration) -> [Action]) async -> Void
    /// How many fixes `desiredAccuracy` kept back from location updates, and the best
    /// accuracy among them.
    package var withheld: @Sendable () async -> (count: Int, bestAccuracy: Double?)
  }
}
