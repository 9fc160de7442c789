/// u-blox's navigation messages, read from their UBX frames: what a receiver that sends UBX
/// (alone, or beside NMEA) says of each epoch. Fields as u-blox's interface descriptions lay
/// them out, in the units they give; ``UBXEpoch`` makes them into a fix.

/// `UBX-NAV-PVT`: the epoch's time, position, velocity and their accuracies.
public struct NavigationSolution: Hashable, Sendable {
  /// The GPS time of week of the epoch, milliseconds: the key that ties an epoch's messages.
  public var timeOfWeek: UInt32
  public var year: Int
  public var month: Int
  public var day: Int
  public var hour: Int
  public var minute: Int
  public var second: Int
  /// Nanoseconds to add to the second (negative as well as positive).
  public var nanosecond: Int
  /// Whether the date, and the time, are valid; and whether both are fully resolved.
  public var dateIsValid: Bool
  public var timeIsValid: Bool
  public var fullyResolved: Bool
  /// 0 no fix, 1 dead reckoning only, 2 2D, 3 3D, 4 GNSS and dead reckoning, 5 time only.
  public var fixType: Int
  /// Whether the fix is valid within the receiver's limits (`gnssFixOK`).
  public var fixIsOK: Bool
  /// Whether differential corrections were applied.
  public var differential: Bool
  /// 0 none, 1 RTK float, 2 RTK fixed.
  public var carrierSolution: Int
  public var satellitesUsed: Int
  /// Degrees.
  public var longitude: Double
  public var latitude: Double
  /// Metres above the ellipsoid, and above mean sea level.
  public var heightAboveEllipsoid: Double
  public var heightAboveSeaLevel: Double
  /// Metres (the receiver's estimates).
  public var horizontalAccuracy: Double
  public var verticalAccuracy: Double
  /// Metres per second over ground, and degrees true of the motion.
  public var groundSpeed: Double
  public var headingOfMotion: Double
  public var pdop: Double
  /// Degrees east, when the receiver says it is valid.
  public var magneticDeclination: Double?

  static let message: (UInt8, UInt8) = (0x01, 0x07)

  /// The solution in a `NAV-PVT` frame; `nil` for any other frame, or one too short.
  public init?(_ frame: UBXFrame) {
    guard frame.is(Self.message), frame.payload.count >= 92 else { return nil }
    let payload = UBXPayload(frame.payload)
    timeOfWeek = payload.u32(0)
    year = Int(payload.u16(4))
    month = Int(payload[6])
    day = Int(payload[7])
    hour = Int(payload[8])
    minute = Int(payload[9])
    second = Int(payload[10])
    let valid = payload[11]
    dateIsValid = valid & 0x01 != 0
    timeIsValid = valid & 0x02 != 0
    fullyResolved = valid & 0x04 != 0
    nanosecond = Int(payload.i32(16))
    fixType = Int(payload[20])
    let flags = payload[21]
    fixIsOK = flags & 0x01 != 0
    differential = flags & 0x02 != 0
    carrierSolution = Int(flags >> 6)
    satellitesUsed = Int(payload[23])
    longitude = Double(payload.i32(24)) * 1e-7
    latitude = Double(payload.i32(28)) * 1e-7
    heightAboveEllipsoid = Double(payload.i32(32)) / 1000
    heightAboveSeaLevel = Double(payload.i32(36)) / 1000
    horizontalAccuracy = Double(payload.u32(40)) / 1000
    verticalAccuracy = Double(payload.u32(44)) / 1000
    groundSpeed = Double(payload.i32(60)) / 1000
    headingOfMotion = Double(payload.i32(64)) * 1e-5
    pdop = Double(payload.u16(76)) * 0.01
    magneticDeclination = valid & 0x08 != 0 ? Double(Int16(bitPattern: payload.u16(88))) * 0.01 : nil
  }
}

/// `UBX-NAV-SAT`: the satellites in view.
public struct SatellitesInView: Hashable, Sendable {
  public struct Satellite: Hashable, Sendable {
    /// u-blox's system: 0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou, 5 QZSS, 6 GLONASS, 7 NavIC.
    public var system: Int
    public var number: Int
    /// dB-Hz; 0 when not tracked.
    public var signalStrength: Int
    /// Degrees; `nil` when unknown.
    public var elevation: Int?
    public var azimuth: Int?
    public var isUsed: Bool

    public init(system: Int, number: Int, signalStrength: Int, elevation: Int?, azimuth: Int?, isUsed: Bool) {
      self.system = system
      self.number = number
      self.signalStrength = signalStrength
      self.elevation = elevation
      self.azimuth = azimuth
      self.isUsed = isUsed
    }
  }

  public var timeOfWeek: UInt32
  public var satellites: [Satellite]

  static let message: (UInt8, UInt8) = (0x01, 0x35)

  /// The satellites in a `NAV-SAT` frame; `nil` for any other frame, or one whose length
  /// disagrees with its count.
  public init?(_ frame: UBXFrame) {
    guard frame.is(Self.message), frame.payload.count >= 8 else { return nil }
    let payload = UBXPayload(frame.payload)
    let count = Int(payload[5])
    guard frame.payload.count == 8 + 12 * count else { return nil }
    timeOfWeek = payload.u32(0)
    satellites = (0..<count).map { index in
      let base = 8 + 12 * index
      let elevation = Int(Int8(bitPattern: payload[base + 3]))
      let azimuth = Int(Int16(bitPattern: payload.u16(base + 4)))
      let flags = payload.u32(base + 8)
      // Elevation beyond ±90 or azimuth beyond 0–360 means unknown.
      return Satellite(
        system: Int(payload[base]), number: Int(payload[base + 1]), signalStrength: Int(payload[base + 2]),
        elevation: abs(elevation) <= 90 ? elevation : nil, azimuth: (0...360).contains(azimuth) ? azimuth : nil,
        isUsed: flags & 0x08 != 0)
    }
  }
}

/// `UBX-NAV-DOP`: the epoch's dilutions of precision.
public struct DilutionOfPrecision: Hashable, Sendable {
  public var timeOfWeek: UInt32
  public var pdop: Double
  public var hdop: Double
  public var vdop: Double

  static let message: (UInt8, UInt8) = (0x01, 0x04)

  public init?(_ frame: UBXFrame) {
    guard frame.is(Self.message), frame.payload.count >= 18 else { return nil }
    let payload = UBXPayload(frame.payload)
    timeOfWeek = payload.u32(0)
    pdop = Double(payload.u16(6)) * 0.01
    vdop = Double(payload.u16(10)) * 0.01
    hdop = Double(payload.u16(12)) * 0.01
  }
}

/// `UBX-NAV-EOE`: the end of an epoch's navigation messages.
public struct EndOfEpoch: Hashable, Sendable {
  public var timeOfWeek: UInt32

  static let message: (UInt8, UInt8) = (0x01, 0x61)

  public init?(_ frame: UBXFrame) {
    guard frame.is(Self.message), frame.payload.count >= 4 else { return nil }
    timeOfWeek = UBXPayload(frame.payload).u32(0)
  }
}

/// Little-endian fields of a payload, by offset.
struct UBXPayload {
  let bytes: [UInt8]
  init(_ bytes: [UInt8]) { self.bytes = bytes }
  subscript(_ offset: Int) -> UInt8 { bytes[offset] }
  func u16(_ offset: Int) -> UInt16 { UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8 }
  func u32(_ offset: Int) -> UInt32 { UInt32(u16(offset)) | UInt32(u16(offset + 2)) << 16 }
  func i32(_ offset: Int) -> Int32 { Int32(bitPattern: u32(offset)) }
}
