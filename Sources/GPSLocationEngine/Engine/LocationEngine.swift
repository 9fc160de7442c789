import FoundationEssentials
import Geomagnetism
import NMEA
import Trigonometry

/// The manager's brain, with no I/O and no clock of its own: fixes, commands and the time
/// in, actions out.
///
/// Every timing decision about *where you are* (dwell, hysteresis, visits) uses the fixes'
/// own timestamps, so a capture replayed at any speed yields the same actions as the live
/// device. Only `requestLocation`'s timeout uses `now`, a monotonic time the driver reads
/// from its injected clock.
public struct LocationEngine: Sendable {
  /// `desiredAccuracy` that accepts every fix (`kCLLocationAccuracyBest`).
  public static let accuracyBest = -1.0
  /// `distanceFilter` that delivers every fix (`kCLDistanceFilterNone`).
  public static let distanceFilterNone = -1.0

  /// The engine's thresholds. The defaults, and why:
  public struct Configuration: Hashable, Sendable {
    /// How long `requestLocation` waits for a fix that meets `desiredAccuracy` before
    /// answering with the best fix seen, or `locationUnknown`. 10 s: a warm receiver gives a
    /// fix every second, and CoreLocation answers within about that.
    public var requestLocationTimeout: Duration = .seconds(10)
    /// Below this speed (m/s) course over ground is mostly noise, so no heading is derived
    /// from it. 1 m/s, a slow walk: consumer receivers' velocity error is a few tenths of a
    /// metre per second, enough to swing the course by tens of degrees below that.
    public var headingMinimumSpeed = 1.0
    /// The 1σ velocity error (m/s) assumed when estimating a course-derived heading's
    /// accuracy as atan(error / speed): 0.5 m/s, on the safe side of u-blox's typical
    /// figures, since NMEA does not report it.
    public var assumedSpeedError = 0.5
    /// Accuracy (degrees) reported for HDT/THS headings from a heading sensor or dual antennas.
    public var sensorHeadingAccuracy = 1.0
    /// Seconds of fix time the opposite evidence must last before a region transition. 5 s
    /// rides out a few jittery fixes at 1 Hz without making entry feel late.
    public var regionDwell: TimeInterval = 5
    /// The dwell while moving at least ``regionFastSpeed``: 3 s, still four fixes in a row at
    /// 1 Hz, so a car is told it entered within a few seconds of crossing the edge.
    public var regionDwellWhileMoving: TimeInterval = 3
    /// The dwell of a region started in a state known beforehand (kept across a restart), for its
    /// first change: 1 s, two fixes in a row at 1 Hz. Not one stray fix, and not a whole dwell:
    /// a program restarted again and again must still see a crossing that happened while it was
    /// down before the device leaves the region again.
    public var regionDwellFromKnownState: TimeInterval = 1
    /// The speed (m/s) from which ``regionDwellWhileMoving`` applies: 2 m/s, faster than a walk.
    public var regionFastSpeed = 2.0
    /// The least hysteresis margin (metres) around a region's edge: 5 m, a good fix's error.
    public var regionMinimumMargin = 5.0
    /// `maximumRegionMonitoringDistance`: 100 km. Larger circles are better served by
    /// checking the location yourself.
    public var maximumRegionRadius = 100_000.0
    /// How many regions may be monitored at once. The grid index keeps even this many cheap.
    public var maximumRegionCount = 100_000
    /// A stay's radius (metres): 100 m holds GPS scatter (a few metres at 1σ, tens indoors
    /// or under trees) and walking around a car park or a building's entrance.
    public var visitRadius = 100.0
    /// Locations at or above this speed (m/s) are travelling, not staying: 2 m/s is faster
    /// than a brisk walk, so walking about a place still counts as being there.
    public var visitMaximumSpeed = 2.0
    /// Minimum stay (seconds) for a visit: 5 minutes, longer than traffic lights, level
    /// crossings and queues, shorter than an errand.
    public var visitMinimumDwell: TimeInterval = 300
    /// Longest gap in fixes (seconds) still counted as time at the same place: one hour.
    public var visitMaximumGap: TimeInterval = 3600
    /// Significant location changes: a location whenever the position moved at least 500 m,
    /// as CoreLocation documents.
    public var significantChangeDistance = 500.0

    public init() {}
  }

  public let configuration: Configuration
  public private(set) var properties = LocationManager.Properties(
    desiredAccuracy: LocationEngine.accuracyBest, distanceFilter: LocationEngine.distanceFilterNone, headingFilter: 1)

  public private(set) var isUpdatingLocation = false
  public private(set) var isUpdatingHeading = false
  public private(set) var isMonitoringVisits = false
  public private(set) var isMonitoringSignificantChanges = false
  /// The latest location, whether delivered or not.
  public private(set) var location: Location?
  /// The latest heading, whether delivered or not.
  public private(set) var heading: Heading?

  /// What the engine has counted: fixes, locations, and those `desiredAccuracy` held back
  /// (a program can say so when nothing gets through).
  public private(set) var statistics = LocationManager.Statistics()
  /// Given to every location the engine makes (``Location/sourceInformation``): a manager
  /// whose receiver replays or simulates sets ``LocationSourceInformation/simulated``.
  public var sourceInformation: LocationSourceInformation?
  var lastDelivered: Location?
  var lastDeliveredHeading: Heading?
  var lastSignificant: Location?
  /// Whether the source started over since the latest location (``sourceRestarted()``).
  var restarted = false
  /// The times of the locations given in the last minute.
  var givenTimes = GivenTimes()
  /// The last location, kept to give the next a speed when its receiver states none; `nil`
  /// after an epoch without a position.
  var speedReference: SpeedReference?
  @usableFromInline var pending: [PendingRequest] = []
  var regions: RegionMonitor
  /// What the receiver's scatter says about its noise, for region decisions.
  var noise = NoiseEstimate()
  var visits: VisitDetector

  @usableFromInline struct PendingRequest: Sendable {
    var deadline: Duration
    var best: Location?
  }

  public init(configuration: Configuration = .init()) {
    self.configuration = configuration
    regions = RegionMonitor(configuration: configuration)
    visits = VisitDetector(configuration: configuration)
  }

  /// Whether anything needs the source running: updates, monitoring, or a pending request.
  public var needsSource: Bool {
    isUpdatingLocation || isUpdatingHeading || isMonitoringVisits || isMonitoringSignificantChanges
      || !regions.isEmpty || !pending.isEmpty
  }

  /// When the driver must call ``advance(to:)`` next, if ever.
  public var nextDeadline: Duration? {
    var earliest: Duration?
    for request in pending where earliest.map({ request.deadline < $0 }) ?? true { earliest = request.deadline }
    return earliest
  }

  /// Whether a `requestLocation` waits for its answer: only then can a fix change what the
  /// driver must do (stop the source, drop the timer). Inlinable: asked before every fix by a
  /// driver that holds the engine `inout`, an out-of-line getter was handed a copy of the
  /// whole engine (1.2 KB).
  @inlinable public var hasPendingRequests: Bool { !pending.isEmpty }

  public var monitoredRegions: Set<Region> { regions.regions }

  // MARK: Commands

  public mutating func set(_ new: LocationManager.Properties) {
    if let value = new.desiredAccuracy { properties.desiredAccuracy = value }
    if let value = new.distanceFilter { properties.distanceFilter = value }
    if let value = new.headingFilter { properties.headingFilter = value }
  }

  public mutating func startUpdatingLocation() { isUpdatingLocation = true }
  public mutating func stopUpdatingLocation() {
    isUpdatingLocation = false
    lastDelivered = nil
  }
  public mutating func startUpdatingHeading() { isUpdatingHeading = true }
  public mutating func stopUpdatingHeading() {
    isUpdatingHeading = false
    lastDeliveredHeading = nil
  }
  public mutating func startMonitoringVisits() { isMonitoringVisits = true }
  /// Monitors visits from a stay kept across a restart (see ``VisitInProgress``).
  public mutating func startMonitoringVisits(resuming stay: VisitInProgress) {
    isMonitoringVisits = true
    visits.resume(stay)
  }
  public mutating func stopMonitoringVisits() {
    isMonitoringVisits = false
    visits.reset()
  }
  public mutating func startMonitoringSignificantLocationChanges() { isMonitoringSignificantChanges = true }
  public mutating func stopMonitoringSignificantLocationChanges() {
    isMonitoringSignificantChanges = false
    lastSignificant = nil
  }

  /// Asks for one location; answered by a later fix or at `now + requestLocationTimeout`.
  public mutating func requestLocation(now: Duration) {
    pending.append(PendingRequest(deadline: now + configuration.requestLocationTimeout))
  }

  public mutating func startMonitoring(_ region: Region) -> [LocationManager.Action] {
    regions.add(region, latest: location)
  }

  public mutating func stopMonitoring(_ region: Region) {
    regions.remove(region.identifier)
  }

  public func requestState(for region: Region) -> [LocationManager.Action] {
    [regions.stateAction(for: region)]
  }

  // MARK: Input

  /// Takes one epoch's fix. Epochs without a position produce nothing: they are not locations;
  /// nor does an epoch given again at the time of the last location (updated by a late
  /// sentence), nor one at a time given a location in the last minute (a receiver's clock that
  /// went back): one location per time.
  public mutating func handle(_ fix: Fix) -> [LocationManager.Action] {
    var actions: [LocationManager.Action] = []
    handle(fix, into: &actions)
    return actions
  }

  /// ``handle(_:)`` appending to `actions`, so a driver that handles many fixes in a row
  /// reuses one array.
  package mutating func handle(_ fix: Fix, into actions: inout [LocationManager.Action]) {
    statistics.fixes += 1
    guard var location = Location(fix) else {
      if fix.timestamp != nil { speedReference = nil }
      return
    }
    // One location per time: an epoch updated by a late sentence, or the same epoch in NMEA
    // and in the receiver's binary protocol (to the millisecond, as locations are written), is
    // the location already given; so is a time the receiver's clock went back to, within the
    // minute. Further back is another recording (a spliced capture) and, after the source
    // starts over (``sourceRestarted()``: a looped replay), every time is new.
    let time = location.timestamp.timeIntervalSince1970
    if let previous = self.location, abs(time - previous.timestamp.timeIntervalSince1970) < GivenTimes.tolerance { return }
    if let newest = givenTimes.newest {
      if restarted || time < newest - GivenTimes.window {
        givenTimes.removeAll()
      } else if time <= newest + GivenTimes.tolerance, givenTimes.contains(time) {
        statistics.timeWentBack += 1
        return
      }
    }
    restarted = false
    givenTimes.insert(time)
    if location.speed < 0 { speedReference?.giveSpeed(to: &location) }
    speedReference = SpeedReference(location)
    location.sourceInformation = sourceInformation
    statistics.locations += 1
    self.location = location
    var delivered = false
    func deliver() {
      guard !delivered else { return }
      delivered = true
      actions.append(.didUpdateLocations([location]))
    }

    let meetsAccuracy = self.meetsAccuracy(location)
    if !pending.isEmpty {
      if meetsAccuracy {
        pending.removeAll()
        deliver()
      } else {
        for index in pending.indices where isBetter(location, than: pending[index].best) {
          pending[index].best = location
        }
      }
    }
    if isUpdatingLocation, !meetsAccuracy {
      statistics.withheld += 1
      if location.horizontalAccuracy >= 0 {
        statistics.bestWithheldAccuracy = min(statistics.bestWithheldAccuracy ?? .infinity, location.horizontalAccuracy)
      }
    }
    if isUpdatingLocation, meetsAccuracy, passesDistanceFilter(location) {
      lastDelivered = location
      deliver()
    } else if isUpdatingLocation, delivered {
      lastDelivered = location
    }
    if isMonitoringSignificantChanges,
      lastSignificant.map({ $0.distance(from: location) >= configuration.significantChangeDistance }) ?? true
    {
      lastSignificant = location
      deliver()
    }
    if let heading = heading(from: fix, at: location.timestamp) {
      self.heading = heading
      if isUpdatingHeading, passesHeadingFilter(heading) {
        lastDeliveredHeading = heading
        actions.append(.didUpdateHeading(newHeading: heading))
      }
    }
    if !regions.isEmpty { actions += regions.update(noise.add(location), at: location.timestamp) }
    if isMonitoringVisits { actions += visits.update(location) }
  }

  /// Answers the requests whose timeout has passed: with the best location seen since each
  /// was made, or `locationUnknown`.
  public mutating func advance(to now: Duration) -> [LocationManager.Action] {
    advance(to: now, cause: nil)
  }

  /// ``advance(to:)``, giving the source's latest problem as the reason no location came, so
  /// the last error said is the real cause (no device, gpsd down) rather than the sky.
  package mutating func advance(to now: Duration, cause: LocationManager.Error?) -> [LocationManager.Action] {
    let expired = pending.filter { $0.deadline <= now }
    pending.removeAll { $0.deadline <= now }
    let timeout = configuration.requestLocationTimeout
    guard let cause else {
      return answers(
        for: expired,
        failure: .init(
          .locationUnknown,
          "No fix arrived within \(timeout) of requesting a location. Check that the receiver has a clear view of the sky; a cold start can take a minute."
        ))
    }
    var failure = LocationManager.Error(.locationUnknown, "No location within \(timeout): \(cause.reason?.summary ?? cause.message)")
    failure.reason = cause.reason
    return answers(for: expired, failure: failure)
  }

  /// The source starts over (a replay played again, a device or connection opened again): its
  /// times may begin before the latest location's, and its first position has no speed from
  /// the one before.
  public mutating func sourceRestarted() {
    restarted = true
    speedReference = nil
  }

  /// The source has no more data (a capture ended) or stopped for good: pending requests are
  /// answered now, with the best location seen, or else `cause` (or `locationUnknown`).
  public mutating func sourceEnded(cause: LocationManager.Error? = nil) -> [LocationManager.Action] {
    let expired = pending
    pending.removeAll()
    return answers(for: expired, failure: cause ?? .init(.locationUnknown, "The source ended before a fix arrived."))
  }

  private func answers(for requests: [PendingRequest], failure: LocationManager.Error) -> [LocationManager.Action] {
    var actions: [LocationManager.Action] = []
    for request in requests {
      let action: LocationManager.Action = request.best.map { .didUpdateLocations([$0]) } ?? .didFailWithError(failure)
      if actions.last != action { actions.append(action) }
    }
    return actions
  }

  // MARK: Rules

  func meetsAccuracy(_ location: Location) -> Bool {
    let desired = properties.desiredAccuracy ?? Self.accuracyBest
    guard desired >= 0 else { return true }
    return location.horizontalAccuracy >= 0 && location.horizontalAccuracy <= desired
  }

  func isBetter(_ location: Location, than other: Location?) -> Bool {
    guard let other else { return true }
    guard location.horizontalAccuracy >= 0 else { return other.horizontalAccuracy < 0 }
    return other.horizontalAccuracy < 0 || location.horizontalAccuracy <= other.horizontalAccuracy
  }

  func passesDistanceFilter(_ location: Location) -> Bool {
    let filter = properties.distanceFilter ?? Self.distanceFilterNone
    guard filter > 0, let lastDelivered else { return true }
    return lastDelivered.distance(from: location) >= filter
  }

  func passesHeadingFilter(_ heading: Heading) -> Bool {
    let filter = properties.headingFilter ?? 1
    guard filter > 0, let lastDeliveredHeading else { return true }
    return angularDifference(heading.trueHeading, lastDeliveredHeading.trueHeading) >= filter
  }

  /// A heading from a heading sensor (HDT/THS) when the receiver has one, else from the
  /// course over ground while moving fast enough for it to mean something.
  func heading(from fix: Fix, at timestamp: Date) -> Heading? {
    let trueHeading: Double
    let accuracy: Double
    if let sensor = fix.trueHeading {
      trueHeading = normalizedDegrees(sensor)
      accuracy = configuration.sensorHeadingAccuracy
    } else if let course = fix.course, let speed = fix.speed, speed >= configuration.headingMinimumSpeed {
      trueHeading = normalizedDegrees(course)
      accuracy = arcTangent2(configuration.assumedSpeedError, speed) * 180 / .pi
    } else {
      return nil
    }
    // The receiver's own variation (RMC), else the World Magnetic Model's at the fix.
    let variation = fix.magneticVariation ?? WorldMagneticModel.wmm2025.declination(for: fix)
    let magnetic = variation.map { normalizedDegrees(trueHeading - $0) } ?? -1
    return Heading(magneticHeading: magnetic, trueHeading: trueHeading, headingAccuracy: accuracy, timestamp: timestamp)
  }
}
