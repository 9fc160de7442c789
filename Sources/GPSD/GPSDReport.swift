import FoundationEssentials

/// One JSON object from gpsd, by its `class`. Fields gpsd may leave out are optional:
/// missing means unknown. Classes this client has no use for are ``unknown(_:)``.
public enum GPSDReport: Hashable, Sendable {
  case version(Version)
  case devices(Devices)
  case device(Device)
  case watch(Watch)
  case tpv(TPV)
  case sky(SKY)
  case gst(GST)
  case att(ATT)
  case error(GPSDError)
  case unknown(String)

  /// The `VERSION` banner gpsd sends on connect. Its numbers changed scheme over the years
  /// (3.17 said proto 3.12, 3.25 says 3.15); they are reported, never checked.
  public struct Version: Codable, Hashable, Sendable {
    public var release: String?
    public var revision: String?
    public var protocolMajor: Int?
    public var protocolMinor: Int?

    public init(release: String? = nil, revision: String? = nil, protocolMajor: Int? = nil, protocolMinor: Int? = nil) {
      self.release = release
      self.revision = revision
      self.protocolMajor = protocolMajor
      self.protocolMinor = protocolMinor
    }

    enum CodingKeys: String, CodingKey {
      case release
      case revision = "rev"
      case protocolMajor = "proto_major"
      case protocolMinor = "proto_minor"
    }
  }

  public struct Devices: Codable, Hashable, Sendable {
    /// Nothing known yet; for reports that reach us other than as JSON (libgps).
    package init() {}

    public var devices: [Device]?
  }

  public struct Device: Codable, Hashable, Sendable {
    /// Nothing known yet; for reports that reach us other than as JSON (libgps).
    package init() {}

    public var path: String?
    public var driver: String?
    public var activated: String?
    public var bps: Int?
    public var cycle: Double?
  }

  public struct Watch: Codable, Hashable, Sendable {
    public var enable: Bool?
    public var json: Bool?
    public var nmea: Bool?
    public var device: String?
  }

  /// Time-position-velocity: gpsd's fix.
  public struct TPV: Codable, Hashable, Sendable {
    /// Nothing known yet; for reports that reach us other than as JSON (libgps).
    package init() {}

    public var device: String?
    /// 0 unknown, 1 no fix, 2 2D, 3 3D.
    public var mode: Int?
    /// 1 GPS, 2 DGPS, 3 RTK fixed, 4 RTK float, 5 dead reckoning, 6 GNSS + DR, 7 time
    /// only, 8 simulated, 9 P(Y).
    public var status: Int?
    public var time: String?
    public var lat: Double?
    public var lon: Double?
    /// Altitude: mean sea level in gpsd 3.20 and later (deprecated there), and in older
    /// versions the only altitude there was.
    public var alt: Double?
    public var altHAE: Double?
    public var altMSL: Double?
    public var geoidSep: Double?
    public var track: Double?
    public var magvar: Double?
    public var speed: Double?
    public var climb: Double?
    public var eph: Double?
    public var epx: Double?
    public var epy: Double?
    public var epv: Double?
    public var eps: Double?
    public var epd: Double?
  }

  public struct SKY: Codable, Hashable, Sendable {
    /// Nothing known yet; for reports that reach us other than as JSON (libgps).
    package init() {}

    public var device: String?
    public var time: String?
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    public var nSat: Int?
    public var uSat: Int?
    public var satellites: [Satellite]?

    public struct Satellite: Codable, Hashable, Sendable {
      /// Nothing known yet; for reports that reach us other than as JSON (libgps).
      package init() {}

      public var PRN: Int?
      public var el: Double?
      public var az: Double?
      public var ss: Double?
      public var used: Bool?
      /// 0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou, 4 IMES, 5 QZSS, 6 GLONASS, 7 NavIC.
      public var gnssid: Int?
      public var svid: Int?
    }
  }

  /// Pseudorange noise: the receiver's 1σ error estimates.
  public struct GST: Codable, Hashable, Sendable {
    public var device: String?
    public var time: String?
    public var rms: Double?
    public var major: Double?
    public var minor: Double?
    public var orient: Double?
    public var lat: Double?
    public var lon: Double?
    public var alt: Double?
  }

  /// Attitude, from a heading sensor or dual-antenna receiver.
  public struct ATT: Codable, Hashable, Sendable {
    public var device: String?
    public var time: String?
    public var heading: Double?
  }

  public struct GPSDError: Codable, Hashable, Sendable {
    /// Nothing known yet; for reports that reach us other than as JSON (libgps).
    package init() {}

    public var message: String?
  }

  /// Why a line could not be read as a report.
  public struct DecodingFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
      /// Not JSON, or not shaped like a gpsd report (no class, a field of the wrong type).
      case malformed
      /// A report holding a value no receiver can have (an altitude of 1e300 m).
      case outOfRange
    }

    public var kind: Kind
    public var description: String
  }

  private struct Envelope: Decodable {
    var `class`: String
  }

  /// Decodes one line. Old gpsd versions' trailing commas (`,]`, `,}`) are tolerated.
  public init(line: some Collection<UInt8>) throws(DecodingFailure) {
    let data = Data(Self.removingTrailingCommas(line))
    let decoder = JSONDecoder()
    do {
      let kind = try decoder.decode(Envelope.self, from: data).class
      switch kind {
      case "VERSION": self = .version(try decoder.decode(Version.self, from: data))
      case "DEVICES": self = .devices(try decoder.decode(Devices.self, from: data))
      case "DEVICE": self = .device(try decoder.decode(Device.self, from: data))
      case "WATCH": self = .watch(try decoder.decode(Watch.self, from: data))
      case "TPV": self = .tpv(try decoder.decode(TPV.self, from: data))
      case "SKY": self = .sky(try decoder.decode(SKY.self, from: data))
      case "GST": self = .gst(try decoder.decode(GST.self, from: data))
      case "ATT": self = .att(try decoder.decode(ATT.self, from: data))
      case "ERROR": self = .error(try decoder.decode(GPSDError.self, from: data))
      default: self = .unknown(kind)
      }
    } catch {
      throw DecodingFailure(kind: .malformed, description: "not a gpsd report: \(error)")
    }
    if let field = implausibleField {
      throw DecodingFailure(kind: .outOfRange, description: "\(field) out of range")
    }
  }

  /// Drops a comma that directly precedes `]` or `}` (whitespace between allowed), outside
  /// strings: gpsd before 3.18 wrote such commas in some lists.
  static func removingTrailingCommas(_ line: some Collection<UInt8>) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity(line.count)
    var strings = JSONStringState()
    var pendingComma: Int?
    for byte in line {
      if strings.consume(byte) {
        pendingComma = nil
        output.append(byte)
        continue
      }
      switch byte {
      case UInt8(ascii: ","):
        pendingComma = output.count
        output.append(byte)
      case UInt8(ascii: "]"), UInt8(ascii: "}"):
        if let comma = pendingComma { output.remove(at: comma) }
        pendingComma = nil
        output.append(byte)
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
        output.append(byte)
      default:
        pendingComma = nil
        output.append(byte)
      }
    }
    return output
  }
}

extension GPSDReport {
  /// The report's `class`, as gpsd writes it.
  package var className: String {
    switch self {
    case .version: "VERSION"
    case .devices: "DEVICES"
    case .device: "DEVICE"
    case .watch: "WATCH"
    case .tpv: "TPV"
    case .sky: "SKY"
    case .gst: "GST"
    case .att: "ATT"
    case .error: "ERROR"
    case .unknown(let name): name
    }
  }
}
