import FoundationEssentials
import Framing
import SourceStatus

/// The location manager of composable-core-location, for Linux and Swift 6: a value of
/// `@Sendable` closures, one per endpoint.
///
/// Make one with ``serial(path:baudRate:configuration:)``, ``gpsd(host:port:device:configuration:)`` or
/// ``replay(capture:speed:configuration:)`` (all share one engine, so a capture replays to the
/// actions the device produced), ``noop``, or, in tests, `.unimplemented()` and
/// `.controlled()` from `GPSLocationTestSupport`. Or build your own: ``init()`` and the endpoints
/// you need.
///
/// Subscribe with ``delegate``: every call returns a new stream that receives every action
/// emitted after it subscribed. Endpoints that act are `async`: they return once the command
/// has reached the manager, so actions they cause arrive on the delegate streams after that.
public struct LocationManager: Sendable {
  public var accuracyAuthorization: @Sendable () async -> AccuracyAuthorization? = { nil }
  public var authorizationStatus: @Sendable () async -> AuthorizationStatus = { .notDetermined }
  /// A new stream of every action emitted from now on. Ending the stream's iteration
  /// unsubscribes it; other subscribers are not affected.
  public var delegate: @Sendable () -> AsyncStream<Action> = { AsyncStream { _ in } }
  /// ``delegate``, a batch at a time: each element is every action that was ready when the
  /// reader asked (one, for a reader that keeps up with a live receiver; thousands, for a
  /// replay at `ReplaySpeed/max`). For readers that do something per batch, such as
  /// flushing a file or drawing a frame, rather than per action.
  public var delegateBatches: @Sendable () -> AsyncStream<[Action]> = { AsyncStream { _ in } }
  /// The latest heading, if any.
  public var heading: @Sendable () async -> Heading? = { nil }
  public var headingAvailable: @Sendable () async -> Bool = { false }
  /// The latest location, if any.
  public var location: @Sendable () async -> Location? = { nil }
  /// Whether a source is configured and present (a device node that exists, a gpsd that
  /// answers, a capture that can be read).
  public var locationServicesEnabled: @Sendable () async -> Bool = { false }
  public var maximumRegionMonitoringDistance: @Sendable () async -> Double = { LocationEngine.Configuration().maximumRegionRadius }
  public var monitoredRegions: @Sendable () async -> Set<Region> = { [] }
  /// Runs several commands as one step: nothing the source reports lands between them, and a
  /// source they start starts after the last. A replay given its regions, heading and updates
  /// this way yields the same actions every time. (Not in upstream.)
  public var perform: @Sendable ([Command]) async -> Void = { _ in }
  public var requestAlwaysAuthorization: @Sendable () async -> Void = {}
  /// Delivers one location: the first fix that meets `desiredAccuracy`, or the best one seen
  /// when the request times out, or `didFailWithError(locationUnknown)`.
  public var requestLocation: @Sendable () async -> Void = {}
  /// Answers `didDetermineState` for a monitored region. (Not in upstream.)
  public var requestState: @Sendable (Region) async -> Void = { _ in }
  /// Tries the source again and reports `didChangeAuthorization`.
  public var requestWhenInUseAuthorization: @Sendable () async -> Void = {}
  public var set: @Sendable (Properties) async -> Void = { _ in }
  public var significantLocationChangeMonitoringAvailable: @Sendable () async -> Bool = { false }
  public var startMonitoringForRegion: @Sendable (Region) async -> Void = { _ in }
  public var startMonitoringSignificantLocationChanges: @Sendable () async -> Void = {}
  public var startMonitoringVisits: @Sendable () async -> Void = {}
  public var startUpdatingHeading: @Sendable () async -> Void = {}
  public var startUpdatingLocation: @Sendable () async -> Void = {}
  /// What the manager has counted since it was made: fixes, locations, and those that
  /// `desiredAccuracy` held back. (Not in upstream.)
  public var statistics: @Sendable () async -> Statistics = { Statistics() }
  public var stopMonitoringForRegion: @Sendable (Region) async -> Void = { _ in }
  public var stopMonitoringSignificantLocationChanges: @Sendable () async -> Void = {}
  public var stopMonitoringVisits: @Sendable () async -> Void = {}
  public var stopUpdatingHeading: @Sendable () async -> Void = {}
  public var stopUpdatingLocation: @Sendable () async -> Void = {}

  /// A manager that does nothing: streams that never yield, no location, not authorized.
  /// Set the endpoints you need on it, or start from one of the factories above.
  public init() {}

  /// What the manager tells its delegate streams, with upstream's case names.
  public enum Action: Equatable, Sendable {
    case didChangeAuthorization(AuthorizationStatus)
    case didDetermineState(RegionState, region: Region)
    case didEnterRegion(Region)
    case didExitRegion(Region)
    case didFailWithError(Error)
    /// The source went away (device unplugged, gpsd stopped, capture ended).
    case didPauseLocationUpdates
    /// The source came back.
    case didResumeLocationUpdates
    case didStartMonitoring(region: Region)
    case didUpdateHeading(newHeading: Heading)
    case didUpdateLocations([Location])
    case didVisit(Visit)
    case monitoringDidFail(region: Region?, error: Error)
    /// gpsbridge's own: what the receiver now says of jamming, spoofing and its antenna (a
    /// u-blox's `MON-HW`, `MON-RF`, `NAV-STATUS`, `SEC-SIG`), and what gpsbridge's own rules
    /// find of spoofing where it says nothing of it (`motion`, `signals alike`, `time rate`,
    /// `signals lost`), at each change
    /// of a state, before the locations it holds for.
    case didChangeSignalIntegrity(SignalIntegrity)
  }

  /// A failure, with a code mirroring `CLError.Code` and a message that says what to do.
  /// Errors from a source also carry their ``Reason``, for code that branches on the cause.
  public struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
    public var code: Code
    public var message: String
    /// The cause, when a source reported it; `nil` for the engine's own errors.
    public var reason: Reason?

    public init(_ code: Code, _ message: String) {
      self.code = code
      self.message = message
    }

    public var description: String { message }

    /// `CLError.Code`'s cases that have a Linux meaning, plus ``endOfCapture``.
    public enum Code: String, Hashable, Sendable, Codable {
      /// No location could be determined (no fix yet, the receiver is silent, or a request timed out).
      case locationUnknown
      /// The process may not open the source; the message names the fix.
      case denied
      /// gpsd could not be reached, or the connection failed.
      case network
      /// A region could not be monitored (bad centre or radius, too large).
      case regionMonitoringFailure
      /// The region monitor could not accept more regions.
      case regionMonitoringDenied
      /// The device was lost (unplugged, I/O error) or is held by another process.
      case deviceUnavailable
      /// A replayed capture has no more data.
      case endOfCapture
    }
  }

  /// Settings, as upstream's `LocationManager.Properties`. Only those with a Linux meaning
  /// act; the rest are accepted so that code compiles, and ignored.
  public struct Properties: Hashable, Sendable {
    /// Metres. Locations worse than this are not delivered by `startUpdatingLocation`, and
    /// `requestLocation` waits for one at least this good until it times out.
    /// Negative (``LocationEngine/accuracyBest``, the default) accepts every fix.
    public var desiredAccuracy: Double?
    /// Metres the position must move before the next location is delivered. Negative (the
    /// default) delivers every fix.
    public var distanceFilter: Double?
    /// Degrees the heading must turn before the next heading is delivered (default 1).
    public var headingFilter: Double?
    /// Ignored on Linux.
    public var activityType: Int?
    /// Ignored on Linux: processes are never suspended.
    public var allowsBackgroundLocationUpdates: Bool?
    /// Ignored on Linux: there is no device orientation.
    public var headingOrientation: Int?
    /// Ignored on Linux: updates pause only when the source goes away.
    public var pausesLocationUpdatesAutomatically: Bool?
    /// Ignored on Linux.
    public var showsBackgroundLocationIndicator: Bool?

    public init(
      desiredAccuracy: Double? = nil, distanceFilter: Double? = nil, headingFilter: Double? = nil,
      activityType: Int? = nil, allowsBackgroundLocationUpdates: Bool? = nil, headingOrientation: Int? = nil,
      pausesLocationUpdatesAutomatically: Bool? = nil, showsBackgroundLocationIndicator: Bool? = nil
    ) {
      self.desiredAccuracy = desiredAccuracy
      self.distanceFilter = distanceFilter
      self.headingFilter = headingFilter
      self.activityType = activityType
      self.allowsBackgroundLocationUpdates = allowsBackgroundLocationUpdates
      self.headingOrientation = headingOrientation
      self.pausesLocationUpdatesAutomatically = pausesLocationUpdatesAutomatically
      self.showsBackgroundLocationIndicator = showsBackgroundLocationIndicator
    }
  }
}

extension LocationManager {
  /// Sets only the given properties, as upstream's labelled `set(…)`.
  public func set(desiredAccuracy: Double? = nil, distanceFilter: Double? = nil, headingFilter: Double? = nil) async {
    await set(Properties(desiredAccuracy: desiredAccuracy, distanceFilter: distanceFilter, headingFilter: headingFilter))
  }

  /// A manager that does nothing: streams that never yield, no location, not authorized.
  /// Handy in previews and as a placeholder.
  public static let noop = LocationManager()
}
