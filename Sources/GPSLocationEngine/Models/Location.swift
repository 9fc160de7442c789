import FoundationEssentials
import NMEA

/// A latitude and longitude in degrees (WGS-84), as `CLLocationCoordinate2D`.
public struct LocationCoordinate2D: Hashable, Sendable, Codable {
  public var latitude: Double
  public var longitude: Double

  public init(latitude: Double, longitude: Double) {
    self.latitude = latitude
    self.longitude = longitude
  }

  /// Whether the latitude is within ±90 and the longitude within ±180.
  public var isValid: Bool {
    latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
  }
}

/// A reported position, shaped like `CLLocation` so code ports over.
///
/// CoreLocation's conventions hold: a negative accuracy, speed or course means "invalid or
/// unknown". Two additions report what the receiver said about the fix: ``fixQuality`` and
/// ``satellitesUsed``.
public struct Location: Hashable, Sendable, Codable {
  public var coordinate: LocationCoordinate2D
  /// Metres above mean sea level.
  public var altitude: Double
  /// Metres above the WGS-84 ellipsoid, or `nil` when the receiver gave no geoid separation.
  public var ellipsoidalAltitude: Double?
  /// Radius of uncertainty in metres; negative when unknown.
  public var horizontalAccuracy: Double
  /// Metres; negative when unknown (and for 2D fixes, whose altitude means nothing).
  public var verticalAccuracy: Double
  /// Metres per second over ground; negative when unknown. The receiver's own, else (when it
  /// states none, as a GGA-only receiver) the distance from the location before over the time
  /// between them.
  public var speed: Double
  /// Metres per second; negative when unknown. NMEA carries none for a receiver's speed; a
  /// speed measured between two locations is good to their two accuracies over the time between
  /// (unknown when either position's accuracy is).
  public var speedAccuracy: Double
  /// Degrees clockwise from true north; negative when unknown.
  public var course: Double
  /// Degrees; negative when unknown.
  public var courseAccuracy: Double
  /// When the receiver computed the fix.
  public var timestamp: Date
  /// How the receiver computed it (GPS, DGPS, RTK …), when it said.
  public var fixQuality: FixQuality?
  /// Satellites used in the solution, when the receiver said.
  public var satellitesUsed: Int?
  /// The age of the differential (DGPS, RTK) corrections the fix used, seconds, and their
  /// reference station, when the receiver said (gpsd's `dgpsAge` and `dgpsSta`).
  public var correctionAge: Double?
  public var correctionStation: Int?
  /// Where the location came from, when that is worth saying, as `CLLocation`'s
  /// `sourceInformation`: a replay's and the simulator's locations say
  /// ``LocationSourceInformation/isSimulatedBySoftware``; a receiver's are `nil`.
  public var sourceInformation: LocationSourceInformation?
  /// Whether ``speed`` was measured between this position and the one before rather than
  /// stated by the receiver (`nil`: stated, or none): ``decisiveSpeed`` holds a measured one
  /// to its accuracy.
  package var speedIsMeasured: Bool?

  public init(
    coordinate: LocationCoordinate2D, altitude: Double = 0, ellipsoidalAltitude: Double? = nil,
    horizontalAccuracy: Double = -1, verticalAccuracy: Double = -1, speed: Double = -1,
    speedAccuracy: Double = -1, course: Double = -1, courseAccuracy: Double = -1, timestamp: Date = Date(),
    fixQuality: FixQuality? = nil, satellitesUsed: Int? = nil, correctionAge: Double? = nil, correctionStation: Int? = nil,
    sourceInformation: LocationSourceInformation? = nil
  ) {
    self.coordinate = coordinate
    self.altitude = altitude
    self.ellipsoidalAltitude = ellipsoidalAltitude
    self.horizontalAccuracy = horizontalAccuracy
    self.verticalAccuracy = verticalAccuracy
    self.speed = speed
    self.speedAccuracy = speedAccuracy
    self.course = course
    self.courseAccuracy = courseAccuracy
    self.timestamp = timestamp
    self.fixQuality = fixQuality
    self.satellitesUsed = satellitesUsed
    self.correctionAge = correctionAge
    self.correctionStation = correctionStation
    self.sourceInformation = sourceInformation
  }

  /// The speed to tell moving from still by: the receiver's own, or a speed measured between
  /// two positions only where it stands clear of their noise (its ``speedAccuracy``); else −1,
  /// unknown. A receiver standing still that states no speed makes a speed of its positions'
  /// scatter (2.5 m/s at 5 Hz from 0.5 m), which must not count as moving; so a speed
  /// measured between positions without an accuracy (a GLL sent alone) decides nothing.
  package var decisiveSpeed: Double {
    if speedAccuracy >= 0 { return speed <= speedAccuracy ? -1 : speed }
    return speedIsMeasured == true ? -1 : speed
  }

  /// Great-circle distance in metres (haversine on the mean Earth radius).
  public func distance(from other: Location) -> Double {
    coordinate.distance(to: other.coordinate)
  }
}

extension Location {
  /// The location a fix describes, or `nil` for a fix without a position or without a date.
  ///
  /// A fix has no date when its stream never said one (a GGA-only receiver, a capture without
  /// RMC, ZDA or a `# Date:` line). Such a fix gives no location: neither the system clock's
  /// date nor any other guess is put on it, since a location with a wrong day is worse than
  /// none (and a clock fed from it would be wrong by days).
  public init?(_ fix: Fix) {
    guard fix.hasPosition, let latitude = fix.latitude, let longitude = fix.longitude, let stamp = fix.timestamp else { return nil }
    let timestamp = Date(timeIntervalSince1970: stamp.secondsSince1970)
    // A 2D fix's altitude is a guess the receiver held over (or made up): it is not reported.
    let isThreeD = fix.mode == .threeD
    self.init(
      coordinate: LocationCoordinate2D(latitude: latitude, longitude: longitude),
      altitude: isThreeD ? fix.altitude ?? 0 : 0,
      ellipsoidalAltitude: isThreeD ? fix.ellipsoidalAltitude : nil,
      horizontalAccuracy: fix.horizontalAccuracy ?? -1,
      verticalAccuracy: isThreeD && fix.altitude != nil ? (fix.verticalAccuracy ?? -1) : -1,
      speed: fix.speed ?? -1,
      course: fix.course ?? -1,
      timestamp: timestamp,
      fixQuality: fix.quality,
      satellitesUsed: fix.satellitesUsed,
      correctionAge: fix.differentialAge,
      correctionStation: fix.differentialStation)
  }
}
