extension LocationManager {
  /// One of the manager's commands as a value, so that several can be given as one step with
  /// ``perform``. Each case does what the endpoint of the same name does.
  public enum Command: Hashable, Sendable {
    case requestLocation
    case set(Properties)
    case startMonitoringForRegion(Region)
    /// Monitors the region from a state known beforehand (kept across a restart, as a
    /// `Monitor` does, or `CLMonitor`'s `assuming:`): a change from it needs the dwell, as any
    /// transition does, rather than the margin alone of a region's first decision. (Not in
    /// upstream.)
    case startMonitoringForRegionAssuming(Region, RegionState)
    case startMonitoringSignificantLocationChanges
    case startMonitoringVisits
    /// Monitors visits, the stay of `VisitInProgress` going on: a restart neither reports its
    /// arrival again nor loses its departure. (Not in upstream.)
    case startMonitoringVisitsResuming(VisitInProgress)
    case startUpdatingHeading
    case startUpdatingLocation
    case stopMonitoringForRegion(Region)
    case stopMonitoringSignificantLocationChanges
    case stopMonitoringVisits
    case stopUpdatingHeading
    case stopUpdatingLocation
  }

  /// What a manager has counted since it was made.
  public struct Statistics: Hashable, Sendable {
    /// Receiver epochs handed to the engine, with or without a position.
    public var fixes = 0
    /// Epochs with a position: each is a ``Location``, delivered or not (but for those in
    /// ``timeWentBack``).
    public var locations = 0
    /// Locations that `desiredAccuracy` kept from location updates.
    public var withheld = 0
    /// The best horizontal accuracy (metres) among the withheld locations, if any had one.
    public var bestWithheldAccuracy: Double?
    /// Epochs with a position stamped at a time already given a location in the last minute:
    /// a receiver whose clock went back over seconds it had placed. They are not locations
    /// (one location per time).
    public var timeWentBack = 0

    public init(
      fixes: Int = 0, locations: Int = 0, withheld: Int = 0, bestWithheldAccuracy: Double? = nil, timeWentBack: Int = 0
    ) {
      self.fixes = fixes
      self.locations = locations
      self.withheld = withheld
      self.bestWithheldAccuracy = bestWithheldAccuracy
      self.timeWentBack = timeWentBack
    }
  }
}

extension LocationEngine {
  /// Runs one command; the actions it causes at once (a region's `didStartMonitoring` and
  /// state) are appended to `actions`. `now` is the driver's clock, for `requestLocation`'s timeout.
  public mutating func perform(_ command: LocationManager.Command, now: Duration, into actions: inout [LocationManager.Action]) {
    switch command {
    case .requestLocation: requestLocation(now: now)
    case .set(let properties): set(properties)
    case .startMonitoringForRegion(let region): actions += startMonitoring(region)
    case .startMonitoringForRegionAssuming(let region, let state): actions += regions.add(region, latest: location, assuming: state)
    case .startMonitoringSignificantLocationChanges: startMonitoringSignificantLocationChanges()
    case .startMonitoringVisits: startMonitoringVisits()
    case .startMonitoringVisitsResuming(let stay): startMonitoringVisits(resuming: stay)
    case .startUpdatingHeading: startUpdatingHeading()
    case .startUpdatingLocation: startUpdatingLocation()
    case .stopMonitoringForRegion(let region): stopMonitoring(region)
    case .stopMonitoringSignificantLocationChanges: stopMonitoringSignificantLocationChanges()
    case .stopMonitoringVisits: stopMonitoringVisits()
    case .stopUpdatingHeading: stopUpdatingHeading()
    case .stopUpdatingLocation: stopUpdatingLocation()
    }
  }
}
