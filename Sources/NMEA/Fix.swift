/// Everything one receiver epoch said about where it is: the result of merging that epoch's
/// sentences. Unknown values are `nil`, never 0. Angles are degrees, distances metres,
/// speeds metres per second.
///
/// A fix is a value, but its fields live in one shared, copy-on-write box: a fix passes from
/// the assembler through the pipeline, the receiver's listeners and the engine by reference
/// count, not as 433 bytes copied at each step (a fast replay spent about a tenth of its time
/// copying fixes). A fix that is changed while shared is copied then, once.
public struct Fix: Hashable, Sendable, Codable, CustomReflectable {
  /// The fields, as one value: what the box holds, and what is compared, hashed and coded.
  struct Values: Hashable, Sendable, Codable {
    var time: UTCTime
    var timestamp: UTCTimestamp?
    var mode: FixMode
    var quality: FixQuality
    var latitude: Double?
    var longitude: Double?
    var altitude: Double?
    var geoidSeparation: Double?
    var speed: Double?
    var course: Double?
    var magneticVariation: Double?
    var trueHeading: Double?
    var satellitesUsed: Int?
    var satellites: [Satellite]
    var pdop: Double?
    var hdop: Double?
    var vdop: Double?
    var differentialAge: Double?
    var differentialStation: Int?
    var errorEstimate: ErrorEstimate?
    var horizontalAccuracy: Double?
    var verticalAccuracy: Double?
    var arrival: UTCTimestamp?
    var arrivalUptime: Duration?
  }

  /// The box: shared between copies of a fix until one of them changes.
  final class Storage: @unchecked Sendable {
    // Unchecked: `values` is changed only through `Fix.values`' `_modify`, which first makes
    // the box the fix's own; a shared box is only read.
    var values: Values
    init(_ values: Values) { self.values = values }
  }

  var storage: Storage

  /// The fields, read in place; changed in a box of this fix's own.
  var values: Values {
    _read { yield storage.values }
    _modify {
      if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.values) }
      yield &storage.values
    }
  }

  init(values: Values) { storage = Storage(values) }

  /// The epoch's UTC time of day, as the receiver stamped it.
  public var time: UTCTime {
    get { storage.values.time }
    set { values.time = newValue }
  }
  /// Date and time, when a date is known (from RMC or ZDA, a capture's `# Date:` comment, or
  /// the date given to the assembler).
  public var timestamp: UTCTimestamp? {
    get { storage.values.timestamp }
    set { values.timestamp = newValue }
  }
  /// No fix, 2D or 3D. A no-fix epoch has no position.
  public var mode: FixMode {
    get { storage.values.mode }
    set { values.mode = newValue }
  }
  public var quality: FixQuality {
    get { storage.values.quality }
    set { values.quality = newValue }
  }
  /// WGS-84 latitude, degrees north.
  public var latitude: Double? {
    get { storage.values.latitude }
    set { values.latitude = newValue }
  }
  /// WGS-84 longitude, degrees east.
  public var longitude: Double? {
    get { storage.values.longitude }
    set { values.longitude = newValue }
  }
  /// Metres above mean sea level.
  public var altitude: Double? {
    get { storage.values.altitude }
    set { values.altitude = newValue }
  }
  /// Metres from the ellipsoid up to mean sea level (GGA/GNS field "geoid separation").
  public var geoidSeparation: Double? {
    get { storage.values.geoidSeparation }
    set { values.geoidSeparation = newValue }
  }
  /// Metres per second over ground.
  public var speed: Double? {
    get { storage.values.speed }
    set { values.speed = newValue }
  }
  /// Course over ground, degrees clockwise from true north.
  public var course: Double? {
    get { storage.values.course }
    set { values.course = newValue }
  }
  /// Degrees, east positive.
  public var magneticVariation: Double? {
    get { storage.values.magneticVariation }
    set { values.magneticVariation = newValue }
  }
  /// Heading from HDT or THS (a heading sensor or dual antennas), degrees true.
  public var trueHeading: Double? {
    get { storage.values.trueHeading }
    set { values.trueHeading = newValue }
  }
  /// Satellites used in the solution, as the receiver counts them.
  public var satellitesUsed: Int? {
    get { storage.values.satellitesUsed }
    set { values.satellitesUsed = newValue }
  }
  /// Satellites in view, from the latest complete GSV groups, with used flags from GSA.
  public var satellites: [Satellite] {
    get { storage.values.satellites }
    set { values.satellites = newValue }
  }
  public var pdop: Double? {
    get { storage.values.pdop }
    set { values.pdop = newValue }
  }
  public var hdop: Double? {
    get { storage.values.hdop }
    set { values.hdop = newValue }
  }
  public var vdop: Double? {
    get { storage.values.vdop }
    set { values.vdop = newValue }
  }
  /// The age of the differential (DGPS or RTK) corrections the fix used, seconds, and the
  /// reference station they came from, as GGA gives them (gpsd's `dgpsAge`, `dgpsSta`).
  public var differentialAge: Double? {
    get { storage.values.differentialAge }
    set { values.differentialAge = newValue }
  }
  public var differentialStation: Int? {
    get { storage.values.differentialStation }
    set { values.differentialStation = newValue }
  }
  /// The receiver's own 1σ error estimates (GST), when it sends them.
  public var errorEstimate: ErrorEstimate? {
    get { storage.values.errorEstimate }
    set { values.errorEstimate = newValue }
  }
  /// Radius of uncertainty, metres: from GST when present, else HDOP × UERE (see
  /// ``EpochAssembler/userEquivalentRangeError(for:)``).
  public var horizontalAccuracy: Double? {
    get { storage.values.horizontalAccuracy }
    set { values.horizontalAccuracy = newValue }
  }
  /// Vertical uncertainty, metres: GST's altitude σ, else VDOP × UERE.
  public var verticalAccuracy: Double? {
    get { storage.values.verticalAccuracy }
    set { values.verticalAccuracy = newValue }
  }
  /// When the epoch's first sentence began to arrive, by the system clock: set for a live
  /// receiver, whose bursts start at a fixed delay after the second they report, so that the
  /// pair is a time sample; `nil` for captures and other sources.
  public var arrival: UTCTimestamp? {
    get { storage.values.arrival }
    set { values.arrival = newValue }
  }
  /// The same moment by the machine's raw oscillator (`CLOCK_MONOTONIC_RAW`: neither stepped
  /// nor slewed by any time service): what the time service measures a receiver's time
  /// against to tell a receiver whose time steps or drifts from a system clock that was set.
  /// `nil` where ``arrival`` is.
  public var arrivalUptime: Duration? {
    get { storage.values.arrivalUptime }
    set { values.arrivalUptime = newValue }
  }

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
    self.init(
      values: Values(
        time: time, timestamp: timestamp, mode: mode, quality: quality, latitude: latitude, longitude: longitude,
        altitude: altitude, geoidSeparation: geoidSeparation, speed: speed, course: course,
        magneticVariation: magneticVariation, trueHeading: trueHeading, satellitesUsed: satellitesUsed,
        satellites: satellites, pdop: pdop, hdop: hdop, vdop: vdop, differentialAge: nil, differentialStation: nil,
        errorEstimate: errorEstimate, horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy,
        arrival: nil, arrivalUptime: nil))
  }

  public static func == (lhs: Fix, rhs: Fix) -> Bool {
    lhs.storage === rhs.storage || lhs.storage.values == rhs.storage.values
  }

  public func hash(into hasher: inout Hasher) { storage.values.hash(into: &hasher) }

  /// The same keys as the fields' names: a fix's JSON is the one it always was.
  public init(from decoder: any Decoder) throws { self.init(values: try Values(from: decoder)) }

  public func encode(to encoder: any Encoder) throws { try storage.values.encode(to: encoder) }

  /// A fix prints, dumps and reflects as its fields, as it did before they were boxed (a test's
  /// failure message shows them, not the box).
  public var customMirror: Mirror {
    Mirror(self, children: Mirror(reflecting: storage.values).children, displayStyle: .struct)
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
