/// What a u-blox receiver says of its signals' integrity: jamming, spoofing and the antenna,
/// read from the UBX frames that carry them. Fields as u-blox's interface descriptions lay them
/// out; a value outside a field's table reads as unknown, never as a state the receiver did not
/// say.

/// A field's table of values: one beyond it reads as unknown.
protocol FieldTable: RawRepresentable where RawValue == Int {
  static var unknown: Self { get }
}

extension FieldTable {
  init(field: Int) { self = Self(rawValue: field) ?? .unknown }
}

/// A receiver's own verdict on jamming, on u-blox's scale (`MON-HW`, `MON-RF`, `SEC-SIG`).
public enum JammingState: Int, Hashable, Sendable, CaseIterable, FieldTable {
  /// Unknown, or the receiver's monitor is off.
  case unknown = 0
  /// No significant jamming.
  case ok = 1
  /// Interference visible, a fix still held.
  case warning = 2
  /// Interference visible and no fix.
  case critical = 3

}

/// A receiver's own verdict on spoofing (`NAV-STATUS`, `SEC-SIG`).
public enum SpoofingState: Int, Hashable, Sendable, CaseIterable, FieldTable {
  /// Unknown, or spoofing detection is off.
  case unknown = 0
  /// No spoofing indicated.
  case none = 1
  /// Spoofing indicated.
  case indicated = 2
  /// `SEC-SIG`'s "spoofing affirmed", `NAV-STATUS`'s "multiple spoofing indications": the
  /// receiver's strongest word for it.
  case affirmed = 3

}

/// The active antenna's supervisor (`MON-HW`'s `aStatus`, `MON-RF`'s `antStatus`).
public enum AntennaStatus: Int, Hashable, Sendable, CaseIterable, FieldTable {
  case initializing = 0
  case unknown = 1
  case ok = 2
  /// The antenna's feed is shorted.
  case short = 3
  /// No antenna draws current: disconnected, or its cable cut.
  case open = 4

}

/// Whether the receiver powers the active antenna (`aPower`, `antPower`).
public enum AntennaPower: Int, Hashable, Sendable, CaseIterable, FieldTable {
  case off = 0
  case on = 1
  case unknown = 2

}

/// `UBX-MON-HW`: the receiver's hardware, of which the RF front end and the antenna.
public struct HardwareStatus: Hashable, Sendable {
  /// Noise level as the receiver measures it (no unit; comparable on one receiver only).
  public var noisePerMillisecond: Int
  /// The automatic gain control's count, 0–8191: it falls as broadband interference rises.
  public var gainControl: Int
  public var antenna: AntennaStatus
  public var antennaPower: AntennaPower
  public var jamming: JammingState
  /// Continuous-wave interference, 0 (none) to 255 (strong): gpsd's `jam`.
  public var jammingIndicator: Int

  static let message: (UInt8, UInt8) = (0x0A, 0x09)

  /// The status in a `MON-HW` frame; `nil` for any other frame, or one too short. u-blox 6
  /// sends 68 bytes (eight more pin mappings before `jamInd`), later generations 60.
  public init?(_ frame: UBXFrame) {
    guard frame.is(Self.message), frame.payload.count >= 60 else { return nil }
    let payload = UBXPayload(frame.payload)
    noisePerMillisecond = Int(payload.u16(16))
    gainControl = Int(payload.u16(18))
    antenna = AntennaStatus(field: Int(payload[20]))
    antennaPower = AntennaPower(field: Int(payload[21]))
    jamming = JammingState(field: Int(payload[22] >> 2 & 0x03))
    jammingIndicator = Int(payload[frame.payload.count >= 68 ? 53 : 45])
  }
}

/// `UBX-MON-RF`: each RF block's front end and antenna (a dual-band receiver has one per band).
public struct RadioStatus: Hashable, Sendable {
  public struct Block: Hashable, Sendable {
    /// 0 for L1, 1 for L2 or L5, as the receiver numbers its blocks.
    public var id: Int
    public var jamming: JammingState
    public var antenna: AntennaStatus
    public var antennaPower: AntennaPower
    public var noisePerMillisecond: Int
    public var gainControl: Int
    public var jammingIndicator: Int
  }

  public var blocks: [Block]

  static let message: (UInt8, UInt8) = (0x0A, 0x38)

  /// The blocks of a `MON-RF` frame; `nil` for any other frame, or one whose length disagrees
  /// with its count.
  public init?(_ frame: UBXFrame) {
    guard frame.is(Self.message), frame.payload.count >= 4 else { return nil }
    let payload = UBXPayload(frame.payload)
    let count = Int(payload[1])
    guard frame.payload.count == 4 + 24 * count else { return nil }
    blocks = (0..<count).map { index in
      let base = 4 + 24 * index
      return Block(
        id: Int(payload[base]), jamming: JammingState(field: Int(payload[base + 1] & 0x03)),
        antenna: AntennaStatus(field: Int(payload[base + 2])), antennaPower: AntennaPower(field: Int(payload[base + 3])),
        noisePerMillisecond: Int(payload.u16(base + 12)), gainControl: Int(payload.u16(base + 14)),
        jammingIndicator: Int(payload[base + 16]))
    }
  }
}

/// `UBX-NAV-STATUS`, for what it says of spoofing (the rest is in `NAV-PVT`).
public struct NavigationStatus: Hashable, Sendable {
  /// The GPS time of week of the epoch, milliseconds.
  public var timeOfWeek: UInt32
  public var spoofing: SpoofingState

  static let message: (UInt8, UInt8) = (0x01, 0x03)

  public init?(_ frame: UBXFrame) {
    guard frame.is(Self.message), frame.payload.count >= 16 else { return nil }
    let payload = UBXPayload(frame.payload)
    timeOfWeek = payload.u32(0)
    spoofing = SpoofingState(field: Int(payload[7] >> 3 & 0x03))
  }
}

/// `UBX-SEC-SIG`, versions 1 and 2: the receiver's jamming and spoofing monitors, and (version
/// 2) which centre frequencies are jammed.
public struct SignalSecurity: Hashable, Sendable {
  /// A centre frequency the jamming monitor watches.
  public struct Frequency: Hashable, Sendable {
    public var kilohertz: Int
    public var isJammed: Bool

    public init(kilohertz: Int, isJammed: Bool) {
      self.kilohertz = kilohertz
      self.isJammed = isJammed
    }
  }

  public var jammingDetectionEnabled: Bool
  public var jamming: JammingState
  public var spoofingDetectionEnabled: Bool
  public var spoofing: SpoofingState
  /// Empty in version 1.
  public var frequencies: [Frequency]

  static let message: (UInt8, UInt8) = (0x27, 0x09)

  /// The states in a `SEC-SIG` frame of version 1 or 2; `nil` for any other frame or version,
  /// or one whose length disagrees with it.
  public init?(_ frame: UBXFrame) {
    guard frame.is(Self.message), frame.payload.count >= 4 else { return nil }
    let payload = UBXPayload(frame.payload)
    switch payload[0] {
    case 1:
      guard frame.payload.count >= 12 else { return nil }
      jammingDetectionEnabled = payload[4] & 0x01 != 0
      jamming = JammingState(field: Int(payload[4] >> 1 & 0x03))
      spoofingDetectionEnabled = payload[8] & 0x01 != 0
      spoofing = SpoofingState(field: Int(payload[8] >> 1 & 0x07))
      frequencies = []
    case 2:
      let count = Int(payload[3])
      guard frame.payload.count == 4 + 4 * count else { return nil }
      let flags = payload[1]
      jammingDetectionEnabled = flags & 0x01 != 0
      jamming = JammingState(field: Int(flags >> 1 & 0x03))
      spoofingDetectionEnabled = flags & 0x08 != 0
      spoofing = SpoofingState(field: Int(flags >> 4 & 0x07))
      frequencies = (0..<count).map { index in
        let field = payload.u32(4 + 4 * index)
        return Frequency(kilohertz: Int(field & 0xFF_FFFF), isJammed: field & 0x100_0000 != 0)
      }
    default:
      return nil
    }
  }
}
