/// A key of a u-blox generation 9 or later configuration (`CFG-VALGET`, `CFG-VALSET`): a 32-bit
/// ID whose bits 28–30 give its value's size.
public struct ConfigurationKey: Hashable, Sendable, Comparable, CustomStringConvertible {
  public let rawValue: UInt32

  public init(_ rawValue: UInt32) {
    self.rawValue = rawValue
  }

  /// The value's size in bytes on the wire: a one-bit value takes a byte.
  public var valueSize: Int {
    switch rawValue >> 28 & 0x7 {
    case 1, 2: 1
    case 3: 2
    case 4: 4
    case 5: 8
    default: 0
    }
  }

  public var description: String { "0x" + String(rawValue, radix: 16) }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where a generation 9 receiver keeps a setting: RAM (in effect now, lost at power off),
/// battery-backed RAM, flash, or its defaults.
public enum ConfigurationLayer: UInt8, Hashable, Sendable {
  case ram = 0
  case batteryBacked = 1
  case flash = 2
  case defaults = 7

  /// The layer's bit in `CFG-VALSET`'s layer mask.
  var setMask: UInt8 {
    switch self {
    case .ram: 0x01
    case .batteryBacked: 0x02
    case .flash: 0x04
    case .defaults: 0
    }
  }
}

/// Class and ID of the UBX messages gpsbridge sends and reads.
public enum UBXMessage {
  public static let acknowledge: (UInt8, UInt8) = (0x05, 0x01)
  public static let refuse: (UInt8, UInt8) = (0x05, 0x00)
  public static let valueGet: (UInt8, UInt8) = (0x06, 0x8B)
  public static let valueSet: (UInt8, UInt8) = (0x06, 0x8A)
  public static let monitorVersion: (UInt8, UInt8) = (0x0A, 0x04)
}

extension UBXFrame {
  /// Whether the frame is `message` (class and ID).
  public func `is`(_ message: (UInt8, UInt8)) -> Bool { messageClass == message.0 && id == message.1 }

  /// `UBX-MON-VER` asked for: the receiver answers with its software, hardware and protocol.
  public static var versionPoll: UBXFrame { UBXFrame(messageClass: UBXMessage.monitorVersion.0, id: UBXMessage.monitorVersion.1) }

  /// `UBX-CFG-VALGET` asking for `keys` in `layer` (at most 64 keys a message).
  public static func valueGet(_ keys: [ConfigurationKey], layer: ConfigurationLayer = .ram) -> UBXFrame {
    var payload: [UInt8] = [0, layer.rawValue, 0, 0]
    for key in keys { payload += littleEndian(UInt64(key.rawValue), size: 4) }
    return UBXFrame(messageClass: UBXMessage.valueGet.0, id: UBXMessage.valueGet.1, payload: payload)
  }

  /// `UBX-CFG-VALSET` setting `values` in `layers` (at most 64 values a message), in the key
  /// order given.
  public static func valueSet(_ values: [(ConfigurationKey, UInt64)], layers: [ConfigurationLayer]) -> UBXFrame {
    var payload: [UInt8] = [0, layers.reduce(0) { $0 | $1.setMask }, 0, 0]
    for (key, value) in values {
      payload += littleEndian(UInt64(key.rawValue), size: 4)
      payload += littleEndian(value, size: key.valueSize)
    }
    return UBXFrame(messageClass: UBXMessage.valueSet.0, id: UBXMessage.valueSet.1, payload: payload)
  }

  /// For an `ACK-ACK` or `ACK-NAK`: whether it accepts, and the class and ID of the message it
  /// answers; `nil` for any other frame.
  public var acknowledgement: (accepted: Bool, messageClass: UInt8, id: UInt8)? {
    guard messageClass == 0x05, id == 0x00 || id == 0x01, payload.count == 2 else { return nil }
    return (id == 0x01, payload[0], payload[1])
  }

  /// For a `CFG-VALGET` answer: its layer and the values it holds; `nil` for any other frame or
  /// an answer cut short.
  public var configurationValues: (layer: UInt8, values: [ConfigurationKey: UInt64])? {
    guard self.is(UBXMessage.valueGet), payload.count >= 4, payload[0] == 1 else { return nil }
    var values: [ConfigurationKey: UInt64] = [:]
    var index = 4
    while index + 4 <= payload.count {
      let key = ConfigurationKey(UInt32(Self.readLittleEndian(payload, at: index, size: 4)))
      let size = key.valueSize
      guard size > 0, index + 4 + size <= payload.count else { return nil }
      values[key] = Self.readLittleEndian(payload, at: index + 4, size: size)
      index += 4 + size
    }
    guard index == payload.count else { return nil }
    return (payload[1], values)
  }

  /// `CFG-VALGET`'s answer of `values` in `layer`, as a receiver sends it.
  public static func valueGetAnswer(_ values: [(ConfigurationKey, UInt64)], layer: ConfigurationLayer = .ram) -> UBXFrame {
    var payload: [UInt8] = [1, layer.rawValue, 0, 0]
    for (key, value) in values {
      payload += littleEndian(UInt64(key.rawValue), size: 4)
      payload += littleEndian(value, size: key.valueSize)
    }
    return UBXFrame(messageClass: UBXMessage.valueGet.0, id: UBXMessage.valueGet.1, payload: payload)
  }

  /// For a `CFG-VALGET` poll or a `CFG-VALSET`, as a receiver reads them: the layer (or the
  /// layer mask) and the keys, with the values a `VALSET` gives; `nil` otherwise.
  public var configurationRequest: (layer: UInt8, keys: [ConfigurationKey], values: [ConfigurationKey: UInt64])? {
    guard payload.count >= 4, payload[0] == 0 else { return nil }
    var keys: [ConfigurationKey] = []
    var values: [ConfigurationKey: UInt64] = [:]
    var index = 4
    if self.is(UBXMessage.valueGet) {
      while index + 4 <= payload.count {
        keys.append(ConfigurationKey(UInt32(Self.readLittleEndian(payload, at: index, size: 4))))
        index += 4
      }
    } else if self.is(UBXMessage.valueSet) {
      while index + 4 <= payload.count {
        let key = ConfigurationKey(UInt32(Self.readLittleEndian(payload, at: index, size: 4)))
        guard key.valueSize > 0, index + 4 + key.valueSize <= payload.count else { return nil }
        keys.append(key)
        values[key] = Self.readLittleEndian(payload, at: index + 4, size: key.valueSize)
        index += 4 + key.valueSize
      }
    } else {
      return nil
    }
    guard index == payload.count else { return nil }
    return (payload[1], keys, values)
  }

  /// `ACK-ACK` (or with `accepted` false, `ACK-NAK`) for `message`.
  public static func acknowledgement(of message: UBXFrame, accepted: Bool) -> UBXFrame {
    UBXFrame(messageClass: 0x05, id: accepted ? 0x01 : 0x00, payload: [message.messageClass, message.id])
  }

  static func littleEndian(_ value: UInt64, size: Int) -> [UInt8] {
    (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
  }

  static func readLittleEndian(_ bytes: [UInt8], at index: Int, size: Int) -> UInt64 {
    (0..<size).reduce(UInt64(0)) { $0 | UInt64(bytes[index + $1]) << (8 * UInt64($1)) }
  }
}

/// What `UBX-MON-VER` says of a receiver: its software and hardware versions, and extensions
/// such as `PROTVER=27.31` and `MOD=ZED-F9P`.
public struct UBXVersion: Hashable, Sendable {
  public var software: String
  public var hardware: String
  public var extensions: [String]

  public init(software: String, hardware: String, extensions: [String]) {
    self.software = software
    self.hardware = hardware
    self.extensions = extensions
  }

  /// The UBX protocol version (`PROTVER=27.31` → 27.31), when an extension says it.
  public var protocolVersion: Double? {
    extensions.lazy.compactMap { $0.hasPrefix("PROTVER=") || $0.hasPrefix("PROTVER ") ? Double($0.dropFirst(8)) : nil }.first
  }

  /// The module's name (`MOD=ZED-F9P` → ZED-F9P), when an extension says it.
  public var module: String? {
    extensions.lazy.compactMap { $0.hasPrefix("MOD=") ? String($0.dropFirst(4)) : nil }.first
  }

  /// The u-blox generation: 9 and later take `CFG-VALSET` (protocol 27 and later), 8 and
  /// before the older `CFG-` messages (M8 firmware goes up to protocol 23.01).
  public var generation: Int? {
    guard let version = protocolVersion else { return nil }
    if version >= 34 { return 10 }
    if version >= 27 { return 9 }
    if version >= 15 { return 8 }
    return 7
  }

  /// `UBX-MON-VER`'s answer, as the receiver sends it.
  public var frame: UBXFrame {
    func field(_ text: String, _ size: Int) -> [UInt8] {
      Array(Array(text.utf8).prefix(size - 1)) + Array(repeating: 0, count: size - min(text.utf8.count, size - 1))
    }
    let payload = field(software, 30) + field(hardware, 10) + extensions.flatMap { field($0, 30) }
    return UBXFrame(messageClass: UBXMessage.monitorVersion.0, id: UBXMessage.monitorVersion.1, payload: payload)
  }

  /// The version in a `UBX-MON-VER` answer; `nil` for any other frame.
  public init?(_ frame: UBXFrame) {
    guard frame.is(UBXMessage.monitorVersion), frame.payload.count >= 40, (frame.payload.count - 40) % 30 == 0 else { return nil }
    func text(_ bytes: ArraySlice<UInt8>) -> String {
      String(decoding: bytes.prefix { $0 != 0 }.filter { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self)
    }
    software = text(frame.payload[0..<30])
    hardware = text(frame.payload[30..<40])
    extensions = stride(from: 40, to: frame.payload.count, by: 30).map { text(frame.payload[$0..<($0 + 30)]) }
  }
}
