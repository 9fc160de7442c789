extension GPSDReport {
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

  /// `DEVICES`: every receiver the daemon has.
  public struct Devices: Codable, Hashable, Sendable {
    public var devices: [Device]?

    public init(devices: [Device]? = nil) {
      self.devices = devices
    }
  }

  /// `DEVICE`: one receiver, when it appears or is asked about; with `activated` 0 when it
  /// went away.
  public struct Device: Codable, Hashable, Sendable {
    public var path: String?
    public var driver: String?
    /// When it was activated (ISO 8601), or `"0"`/0 when it went away.
    public var activated: String?
    /// 1 when the daemon has seen GPS data from it.
    public var flags: Int?
    /// 0 when the receiver speaks NMEA (gpsd's "native" mode is its binary protocol).
    public var native: Int?
    public var bitsPerSecond: Int?
    /// `N`, `O` or `E`.
    public var parity: String?
    public var stopBits: Int?
    /// Seconds between epochs.
    public var cycle: Double?
    /// What kind of device it is beyond its driver: gpsd puts the firmware's version here;
    /// gpsbridge says `simulated` for a replay or the simulator.
    public var subtype: String?

    public init(
      path: String? = nil, driver: String? = nil, activated: String? = nil, flags: Int? = nil, native: Int? = nil,
      bitsPerSecond: Int? = nil, parity: String? = nil, stopBits: Int? = nil, cycle: Double? = nil, subtype: String? = nil
    ) {
      self.path = path
      self.driver = driver
      self.activated = activated
      self.flags = flags
      self.native = native
      self.bitsPerSecond = bitsPerSecond
      self.parity = parity
      self.stopBits = stopBits
      self.cycle = cycle
      self.subtype = subtype
    }

    enum CodingKeys: String, CodingKey {
      case path, driver, activated, flags, native, parity, cycle, subtype
      case bitsPerSecond = "bps"
      case stopBits = "stopbits"
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      path = try container.decodeIfPresent(String.self, forKey: .path)
      driver = try container.decodeIfPresent(String.self, forKey: .driver)
      // gpsd writes the time it was activated, or the number 0 when it went away.
      if let text = try? container.decodeIfPresent(String.self, forKey: .activated) {
        activated = text
      } else {
        activated = try container.decodeIfPresent(Double.self, forKey: .activated).map { $0 == 0 ? "0" : String($0) }
      }
      flags = try container.decodeIfPresent(Int.self, forKey: .flags)
      native = try container.decodeIfPresent(Int.self, forKey: .native)
      bitsPerSecond = try container.decodeIfPresent(Int.self, forKey: .bitsPerSecond)
      parity = try container.decodeIfPresent(String.self, forKey: .parity)
      stopBits = try container.decodeIfPresent(Int.self, forKey: .stopBits)
      cycle = try container.decodeIfPresent(Double.self, forKey: .cycle)
      subtype = try container.decodeIfPresent(String.self, forKey: .subtype)
    }

    /// Whether this notice says the device went away.
    public var isGone: Bool { activated == "0" }
  }

  /// `ERROR`: a request the daemon could not answer.
  public struct GPSDError: Codable, Hashable, Sendable {
    public var message: String?

    public init(message: String? = nil) {
      self.message = message
    }
  }

  /// `POLL`: the latest fix of each device, as lists, with the time of asking.
  public struct Poll: Codable, Hashable, Sendable {
    public var time: String?
    /// How many devices have a fix to report.
    public var active: Int?
    public var tpv: [TPV]?
    public var gst: [GST]?
    public var sky: [SKY]?

    public init(time: String? = nil, active: Int? = nil, tpv: [TPV]? = nil, gst: [GST]? = nil, sky: [SKY]? = nil) {
      self.time = time
      self.active = active
      self.tpv = tpv
      self.gst = gst
      self.sky = sky
    }
  }
}
