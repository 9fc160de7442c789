extension GPSDReport {
  /// Time-position-velocity: gpsd's fix.
  public struct TPV: Codable, Hashable, Sendable {
    /// What kind of fix: gpsd's `mode`.
    public enum Mode: Int, Codable, Hashable, Sendable {
      case unknown = 0
      case noFix = 1
      case twoD = 2
      case threeD = 3
    }

    /// How the fix was made: gpsd's `status`.
    public enum Status: Int, Codable, Hashable, Sendable {
      case unknown = 0
      case gps = 1
      case dgps = 2
      case rtkFixed = 3
      case rtkFloat = 4
      case deadReckoning = 5
      case gnssAndDeadReckoning = 6
      case timeOnly = 7
      case simulated = 8
      case precise = 9
    }

    public var device: String?
    public var mode: Mode?
    public var status: Status?
    /// ISO 8601 UTC.
    public var time: String?
    /// Estimated time error, seconds.
    public var timeError: Double?
    public var latitude: Double?
    public var longitude: Double?
    /// Altitude: mean sea level in gpsd 3.20 and later (deprecated there), and in older
    /// versions the only altitude there was.
    public var altitude: Double?
    /// Height above the WGS-84 ellipsoid.
    public var ellipsoidalAltitude: Double?
    /// Height above mean sea level.
    public var altitudeMSL: Double?
    /// The geoid's height above the ellipsoid.
    public var geoidSeparation: Double?
    /// Course over ground, degrees true.
    public var course: Double?
    /// Course over ground, degrees magnetic.
    public var magneticCourse: Double?
    /// Magnetic variation, degrees (east positive).
    public var magneticVariation: Double?
    /// Metres per second.
    public var speed: Double?
    /// Vertical speed, metres per second (up positive).
    public var climb: Double?
    /// Estimated horizontal position error, metres.
    public var horizontalError: Double?
    /// Estimated longitude (east-west) error, metres.
    public var longitudeError: Double?
    /// Estimated latitude (north-south) error, metres.
    public var latitudeError: Double?
    /// Estimated vertical error, metres.
    public var verticalError: Double?
    /// Estimated speed error, metres per second.
    public var speedError: Double?
    /// Estimated course error, degrees.
    public var courseError: Double?
    /// Estimated climb error, metres per second.
    public var climbError: Double?
    /// Estimated spherical (3D) position error, metres.
    public var sphericalError: Double?
    /// The age of the differential corrections the fix used, seconds.
    public var differentialAge: Double?
    /// The differential reference station's id.
    public var differentialStation: Int?
    /// The antenna's feed, as gpsd 3.26 and later say it when it is wrong: 2 open, 3 short.
    public var antennaStatus: Int?
    /// Whether the receiver powers the antenna, as gpsd 3.26 and later say it: 1 off, 2 on.
    public var antennaPower: Int?
    /// Continuous-wave jamming, 1 (a little) to 255 (strong), as gpsd 3.26 and later say it
    /// when it is not 0.
    public var jamming: Int?

    public init(device: String? = nil, mode: Mode? = nil, time: String? = nil) {
      self.device = device
      self.mode = mode
      self.time = time
    }

    enum CodingKeys: String, CodingKey {
      case device, mode, status, time, speed, climb
      case timeError = "ept"
      case latitude = "lat"
      case longitude = "lon"
      case altitude = "alt"
      case ellipsoidalAltitude = "altHAE"
      case altitudeMSL = "altMSL"
      case geoidSeparation = "geoidSep"
      case course = "track"
      case magneticCourse = "magtrack"
      case magneticVariation = "magvar"
      case horizontalError = "eph"
      case longitudeError = "epx"
      case latitudeError = "epy"
      case verticalError = "epv"
      case speedError = "eps"
      case courseError = "epd"
      case climbError = "epc"
      case sphericalError = "sep"
      case differentialAge = "dgpsAge"
      case differentialStation = "dgpsSta"
      case antennaStatus = "ant"
      case antennaPower = "antPwr"
      case jamming = "jam"
    }
  }
}
