/// Everything one receiver epoch said about where it is: the result of merging that epoch's
/// sentences. Unknown values are `nil`, never 0. Angles are degrees, distances metres,
/// speeds metres per second.
public struct Fix: Hashable, Sendable, Codable {
  /// The epoch's UTC time of day, as the receiver stamped it.
  public var time: UTCTime
  /// Date and time, when a date is known (from RMC or ZDA, a capture's `# Date:` comment, or
  /// the date given to the assembler).
  public var timestamp: UTCTimestamp?
  /// No fix, 2D or 3D. A no-fix epoch has no position.
  public var mode: FixMode
  public var quality: FixQuality
  /// WGS-84 latitude, degrees north.
  public var latitude: Double?
  /// WGS-84 longitude, degrees east.
  public var longitude: Double?
  /// Metres above mean sea level.
  public var altitude: Double?
  /// Metres from the ellipsoid up to mean sea level (GGA/GNS field "geoid separation").
  public var geoidSeparation: Double?
  /// Metres per second over ground.
  public var speed: Double?
  /// Course over ground, degrees clockwise from true north.
  public var course: Double?
  /// Degrees, east positive.
  public var magneticVariation: Double?
  /// Heading from HDT or THS (a heading sensor or dual antennas), degrees true.
  public var trueHeading: Double?
  /// Satellites used in the solution, as the receiver counts them.
  public var satellitesUsed: Int?
  /// Satellites in view, from the latest complete GSV groups, with used flags from GSA.
  public var satellites: [Satellite]
  public var pdop: Double?
  public var hdop: Double?
  public var vdop: Double?
  /// The age of the differential (DGPS or RTK) corrections the fix used, seconds, and the
  /// reference station they came from, as GGA gives them (gpsd's `dgpsAge`, `dgpsSta`).
  public var differentialAge: Double?
  public var differentialStation: Int?
  /// The receiver's own 1σ error estimates (GST), when it sends them.
  public var errorEstimate: ErrorEstimate?
  /// Radius of uncertainty, metres: from GST when present, else HDOP × UERE (see
  /// ``EpochAssembler/userEquivalentRangeError(for:)``).
  public var horizontalAccuracy: Double?
  /// Vertical uncertainty, metres: GST's altitude σ, else VDOP × UERE.
  public var verticalAccuracy: Double?
  /// When the epoch's first sentence began to arrive, by the system clock: set for a live
  /// receiver, whose bursts start at a fixed delay after the second they report, so that the
  /// pair is a time sample; `nil` for captures and other sources.
  public var arrival: UTCTimestamp?
  /// The same moment by the machine's raw oscillator (`CLOCK_MONOTONIC_RAW`: neither stepped
  /// nor slewed by any time service): what the time service measures a receiver's time
  /// against to tell a receiver whose time steps or drifts from a system clock that was set.
  /// `nil` where ``arrival`` is.
  public var arrivalUptime: Duration?

  /// Whether the fix carries a usable position.
  public var hasPosition: Bool { mode != .none && latitude != nil && longitude != nil }

  /// Height above the WGS-84 ellipsoid, when both parts are known: their sum in whole
  /// micrometres, so two decimals as a receiver writes them add up to the decimal they make
  /// (15.6 + 47.3 is 62.9, not the binary sum 62.900000000000006).
  public var ellipsoidalAltitude: Double? {
    guard let altitude, let geoidSeparation else { return nil }
    return ((altitude + geoidSeparation) * 1e6).rounded() / 1e6
  }

  public init(
    time: UTCTime, timestamp: UTCTimestamp? = nil, mode: FixMode = .none, quality: FixQuality = .invalid,
    latitude: Double? = nil, longitude: Double? = nil, altitude: Double? = nil, geoidSeparation: Double? = nil,
    speed: Double? = nil, course: Double? = nil, magneticVariation: Double? = nil, trueHeading: Double? = nil,
    satellitesUsed: Int? = nil, satellites: [Satellite] = [], pdop: Double? = nil, hdop: Double? = nil,
    vdop: Double? = nil, errorEstimate: ErrorEstimate? = nil, horizontalAccuracy: Double? = nil,
    verticalAccuracy: Double? = nil
  ) {
    self.time = time
    self.timestamp = timestamp
    self.mode = mode
    self.quality = quality
    self.latitude = latitude
    self.longitude = longitude
    self.altitude = altitude
    self.geoidSeparation = geoidSeparation
    self.speed = speed
    self.course = course
    self.magneticVariation = magneticVariation
    self.trueHeading = trueHeading
    self.satellitesUsed = satellitesUsed
    self.satellites = satellites
    self.pdop = pdop
    self.hdop = hdop
    self.vdop = vdop
    self.errorEstimate = errorEstimate
    self.horizontalAccuracy = horizontalAccuracy
    self.verticalAccuracy = verticalAccuracy
  }

  /// A satellite in view.
  public struct Satellite: Hashable, Sendable, Codable {
    /// `nil` when neither the talker nor the number says which system it belongs to.
    public var constellation: Constellation?
    /// The number the receiver gives it (its PRN in NMEA's numbering).
    public var number: Int
    public var elevation: Int?
    public var azimuth: Int?
    /// dB-Hz; `nil` when not tracked. The strongest signal when several bands report it.
    public var snr: Int?
    /// Whether GSA lists it as used in the solution.
    public var isUsed: Bool

    public init(
      constellation: Constellation?, number: Int, elevation: Int? = nil, azimuth: Int? = nil, snr: Int? = nil, isUsed: Bool = false
    ) {
      self.constellation = constellation
      self.number = number
      self.elevation = elevation
      self.azimuth = azimuth
      self.snr = snr
      self.isUsed = isUsed
    }
  }

  /// GST's 1σ estimates, metres (orientation in degrees).
  public struct ErrorEstimate: Hashable, Sendable, Codable {
    public var rangeRMS: Double?
    public var semiMajor: Double?
    public var semiMinor: Double?
    public var orientation: Double?
    public var latitude: Double?
    public var longitude: Double?
    public var altitude: Double?

    public init(
      rangeRMS: Double? = nil, semiMajor: Double? = nil, semiMinor: Double? = nil, orientation: Double? = nil, latitude: Double? = nil,
      longitude: Double? = nil, altitude: Double? = nil
    ) {
      self.rangeRMS = rangeRMS
      self.semiMajor = semiMajor
      self.semiMinor = semiMinor
      self.orientation = orientation
      self.latitude = latitude
      self.longitude = longitude
      self.altitude = altitude
    }
  }
}
