extension GPSDReport {
  /// The satellites in view and the dilutions of precision.
  public struct SKY: Codable, Hashable, Sendable {
    public var device: String?
    public var time: String?
    public var horizontalDOP: Double?
    public var verticalDOP: Double?
    public var positionDOP: Double?
    public var timeDOP: Double?
    public var geometricDOP: Double?
    /// Longitude (east-west) dilution.
    public var longitudeDOP: Double?
    /// Latitude (north-south) dilution.
    public var latitudeDOP: Double?
    /// How many satellites are listed.
    public var visibleCount: Int?
    /// How many of them the fix used.
    public var usedCount: Int?
    public var satellites: [Satellite]?

    public init(device: String? = nil, time: String? = nil, satellites: [Satellite]? = nil) {
      self.device = device
      self.time = time
      self.satellites = satellites
    }

    enum CodingKeys: String, CodingKey {
      case device, time, satellites
      case horizontalDOP = "hdop"
      case verticalDOP = "vdop"
      case positionDOP = "pdop"
      case timeDOP = "tdop"
      case geometricDOP = "gdop"
      case longitudeDOP = "xdop"
      case latitudeDOP = "ydop"
      case visibleCount = "nSat"
      case usedCount = "uSat"
    }

    public struct Satellite: Codable, Hashable, Sendable {
      /// gpsd's satellite number: the PRN in its extended numbering (GLONASS 65–96, …).
      public var prn: Int?
      /// Degrees above the horizon.
      public var elevation: Double?
      /// Degrees true.
      public var azimuth: Double?
      /// Signal strength, dB-Hz.
      public var signalStrength: Double?
      public var used: Bool?
      /// 0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou, 4 IMES, 5 QZSS, 6 GLONASS, 7 NavIC.
      public var gnssID: Int?
      /// The satellite's number within its system.
      public var svID: Int?

      public init(
        prn: Int? = nil, elevation: Double? = nil, azimuth: Double? = nil, signalStrength: Double? = nil, used: Bool? = nil,
        gnssID: Int? = nil, svID: Int? = nil
      ) {
        self.prn = prn
        self.elevation = elevation
        self.azimuth = azimuth
        self.signalStrength = signalStrength
        self.used = used
        self.gnssID = gnssID
        self.svID = svID
      }

      enum CodingKeys: String, CodingKey {
        case used
        case prn = "PRN"
        case elevation = "el"
        case azimuth = "az"
        case signalStrength = "ss"
        case gnssID = "gnssid"
        case svID = "svid"
      }
    }
  }

  /// Pseudorange noise: the receiver's 1σ error estimates, metres (orientation in degrees).
  public struct GST: Codable, Hashable, Sendable {
    public var device: String?
    public var time: String?
    public var rangeRMS: Double?
    public var semiMajor: Double?
    public var semiMinor: Double?
    public var orientation: Double?
    public var latitudeError: Double?
    public var longitudeError: Double?
    public var altitudeError: Double?

    public init(device: String? = nil, time: String? = nil) {
      self.device = device
      self.time = time
    }

    enum CodingKeys: String, CodingKey {
      case device, time
      case rangeRMS = "rms"
      case semiMajor = "major"
      case semiMinor = "minor"
      case orientation = "orient"
      case latitudeError = "lat"
      case longitudeError = "lon"
      case altitudeError = "alt"
    }
  }

  /// Attitude, from a heading sensor or dual-antenna receiver.
  public struct ATT: Codable, Hashable, Sendable {
    public var device: String?
    public var time: String?
    /// Degrees true.
    public var heading: Double?

    public init(device: String? = nil, time: String? = nil, heading: Double? = nil) {
      self.device = device
      self.time = time
      self.heading = heading
    }
  }
}
