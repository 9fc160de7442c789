import Framing

/// What a receiver said it is, asked before anything is written to it.
public struct ReceiverIdentity: Hashable, Sendable, CustomStringConvertible {
  /// The kinds of receiver gpsbridge sets up, each with its own commands.
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    /// u-blox generation 9 and 10 (`CFG-VALGET`, `CFG-VALSET`), asked by `UBX-MON-VER`.
    case ublox9
    /// u-blox M8 and older (`CFG-PRT`, `CFG-RATE`, `CFG-MSG`…), asked by `UBX-MON-VER`.
    case ublox8
    /// MediaTek (`PMTK`), asked by `PMTK605`.
    case mediatek
    /// SiRF in NMEA mode (`PSRF`): it answers no question, so it is known by what it is not
    /// (neither u-blox nor MediaTek) and by its NMEA 2.2 output.
    case sirf
  }

  public var kind: Kind
  /// The module or chip (`ZED-F9P`, `NEO-M8N`, `Quectel-L76`), or its hardware version.
  public var model: String
  /// Its firmware, as it says it.
  public var firmware: String
  /// u-blox's protocol version (`27.31`), for u-blox receivers.
  public var protocolVersion: Double?

  public init(kind: Kind, model: String, firmware: String, protocolVersion: Double? = nil) {
    self.kind = kind
    self.model = model
    self.firmware = firmware
    self.protocolVersion = protocolVersion
  }

  /// A u-blox, as its `UBX-MON-VER` answer says it: generation 9 and later, or M8 and older.
  init(_ version: UBXVersion) {
    self.init(
      kind: (version.generation ?? 0) >= 9 ? .ublox9 : .ublox8, model: version.module ?? "u-blox \(version.hardware)",
      firmware: version.firmware, protocolVersion: version.protocolVersion)
  }

  /// "ZED-F9P (u-blox generation 9, protocol 27.31, HPG 1.32)" for people.
  public var description: String {
    switch kind {
    case .ublox9, .ublox8:
      let generation = kind == .ublox9 ? (protocolVersion ?? 0 >= 34 ? "10" : "9") : "8 or older"
      return "\(model) (u-blox generation \(generation), protocol \(protocolVersion.map { String($0) } ?? "unknown"), \(firmware))"
    case .mediatek: return "\(model) (MediaTek, \(firmware))"
    case .sirf: return "\(model) (SiRF in NMEA mode)"
    }
  }
}
