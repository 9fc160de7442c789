/// The configuration messages of u-blox receivers before generation 9 (M8 and older), each a
/// whole block of settings: `CFG-PRT`, `CFG-RATE`, `CFG-MSG`, `CFG-GNSS`, `CFG-NAV5`,
/// `CFG-TP5` and `CFG-CFG`. They are set by writing the block back whole, so a change is made
/// on the block as the receiver reported it (polled first); only `CFG-NAV5` is written fresh,
/// since its mask applies the fields named and leaves the others.
package enum UBXLegacyMessage {
  package static let port: (UInt8, UInt8) = (0x06, 0x00)
  package static let messageRate: (UInt8, UInt8) = (0x06, 0x01)
  package static let rate: (UInt8, UInt8) = (0x06, 0x08)
  package static let saveLoad: (UInt8, UInt8) = (0x06, 0x09)
  package static let navigation: (UInt8, UInt8) = (0x06, 0x24)
  package static let timePulse: (UInt8, UInt8) = (0x06, 0x31)
  package static let gnss: (UInt8, UInt8) = (0x06, 0x3E)
  package static let interference: (UInt8, UInt8) = (0x06, 0x39)
  /// NMEA sentences are UBX messages of class 0xF0 for `CFG-MSG`.
  package static let nmeaClass: UInt8 = 0xF0
  /// UART1, where a module's TX pin or a USB receiver's serial bridge is wired.
  package static let uart1: UInt8 = 1
}

extension UBXFrame {
  /// A poll of `message` (class and ID), with the payload that selects what is asked for.
  package static func poll(_ message: (UInt8, UInt8), _ payload: [UInt8] = []) -> UBXFrame {
    UBXFrame(messageClass: message.0, id: message.1, payload: payload)
  }

  /// The block of `message`, when this frame is one of at least `count` bytes.
  package func block(_ message: (UInt8, UInt8), count: Int) -> [UInt8]? {
    self.is(message) && payload.count >= count ? payload : nil
  }
}

/// `CFG-PRT` for a port: the protocols it takes and sends, and for a UART its speed.
package struct UBXPortSettings: Hashable, Sendable {
  /// The 20 bytes as the receiver reported them: fields not named here are written back as read.
  package var payload: [UInt8]

  package init?(_ frame: UBXFrame) {
    guard let payload = frame.block(UBXLegacyMessage.port, count: 20), UBXPort(rawValue: payload[0]) != nil else { return nil }
    self.payload = Array(payload.prefix(20))
  }

  /// The port these settings are of.
  package var port: UBXPort { UBXPort(rawValue: payload[0]) ?? .uart1 }

  /// UART1 at `baudRate`, 8N1, taking UBX, NMEA and RTCM 3 and sending UBX and NMEA.
  package init(baudRate: Int) {
    payload = [UBXLegacyMessage.uart1, 0, 0, 0] + UBXFrame.littleEndian(0x08C0, size: 4)
    payload += UBXFrame.littleEndian(UInt64(baudRate), size: 4) + [0x23, 0, 0x03, 0, 0, 0, 0, 0]
  }

  /// The speed of a UART; `nil` for a port without one (USB), where the field is reserved.
  package var baudRate: Int? {
    get { port.hasBaudRate ? payload[littleEndian: 8, size: 4] : nil }
    set {
      guard port.hasBaudRate, let newValue else { return }
      payload[littleEndian: 8, size: 4] = newValue
    }
  }

  /// What it sends: bit 0 UBX, bit 1 NMEA.
  package var outputProtocols: UInt16 {
    get { UInt16(payload[littleEndian: 14, size: 2]) }
    set { payload[littleEndian: 14, size: 2] = Int(newValue) }
  }

  package var frame: UBXFrame { UBXFrame(messageClass: UBXLegacyMessage.port.0, id: UBXLegacyMessage.port.1, payload: payload) }

  /// The poll for UART1's settings.
  package static var poll: UBXFrame { poll(.uart1) }

  /// The poll for `port`'s settings.
  package static func poll(_ port: UBXPort) -> UBXFrame { .poll(UBXLegacyMessage.port, [port.rawValue]) }

  /// The poll without a port: the receiver answers with the settings of the port it was
  /// received on, the one the host talks through.
  package static var currentPortPoll: UBXFrame { .poll(UBXLegacyMessage.port) }
}

/// `CFG-RATE`: the time between measurements.
package struct UBXRateSettings: Hashable, Sendable {
  package var payload: [UInt8]

  package init?(_ frame: UBXFrame) {
    guard let payload = frame.block(UBXLegacyMessage.rate, count: 6) else { return nil }
    self.payload = Array(payload.prefix(6))
  }

  /// One navigation solution every `measurementPeriod` milliseconds, aligned to GPS time.
  package init(measurementPeriod: Int) {
    payload = UBXFrame.littleEndian(UInt64(measurementPeriod), size: 2) + [1, 0, 1, 0]
  }

  /// Milliseconds between measurements.
  package var measurementPeriod: Int {
    get { payload[littleEndian: 0, size: 2] }
    set { payload[littleEndian: 0, size: 2] = newValue }
  }

  package var frame: UBXFrame { UBXFrame(messageClass: UBXLegacyMessage.rate.0, id: UBXLegacyMessage.rate.1, payload: payload) }
  package static var poll: UBXFrame { .poll(UBXLegacyMessage.rate) }
}

/// `CFG-MSG`: how often a message goes out on each port, in navigation solutions (0 is never).
package struct UBXMessageRate: Hashable, Sendable {
  package var messageClass: UInt8
  package var id: UInt8
  /// Per port: I2C, UART1, UART2, USB, SPI, reserved.
  package var rates: [UInt8]

  package init(messageClass: UInt8, id: UInt8, rates: [UInt8]) {
    self.messageClass = messageClass
    self.id = id
    self.rates = Array((rates + Array(repeating: 0, count: 6)).prefix(6))
  }

  package init?(_ frame: UBXFrame) {
    guard let payload = frame.block(UBXLegacyMessage.messageRate, count: 8) else { return nil }
    self.init(messageClass: payload[0], id: payload[1], rates: Array(payload[2..<8]))
  }

  package var onUART1: UInt8 {
    get { rates[Int(UBXLegacyMessage.uart1)] }
    set { rates[Int(UBXLegacyMessage.uart1)] = newValue }
  }

  /// The rate on `port`.
  package subscript(port: UBXPort) -> UInt8 {
    get { rates[Int(port.rawValue)] }
    set { rates[Int(port.rawValue)] = newValue }
  }

  package var frame: UBXFrame {
    UBXFrame(messageClass: UBXLegacyMessage.messageRate.0, id: UBXLegacyMessage.messageRate.1, payload: [messageClass, id] + rates)
  }

  package static func poll(messageClass: UInt8, id: UInt8) -> UBXFrame { .poll(UBXLegacyMessage.messageRate, [messageClass, id]) }
}

/// `CFG-GNSS`: the satellite systems tracked, a block each (`gnssId`: 0 GPS, 1 SBAS, 2 Galileo,
/// 3 BeiDou, 5 QZSS, 6 GLONASS).
package struct UBXSystemSettings: Hashable, Sendable {
  package var payload: [UInt8]

  package init?(_ frame: UBXFrame) {
    guard let payload = frame.block(UBXLegacyMessage.gnss, count: 4), payload.count == 4 + 8 * Int(payload[3]) else { return nil }
    self.payload = payload
  }

  /// Blocks for `systems` (by `gnssId`), each with its channel limits, on or off.
  package init(blocks: [(system: UInt8, reserved: UInt8, maximum: UInt8, enabled: Bool)]) {
    payload = [0, 32, 32, UInt8(blocks.count)]
    for block in blocks {
      payload +=
        [block.system, block.reserved, block.maximum, 0] + UBXFrame.littleEndian(block.enabled ? 0x0101_0001 : 0x0101_0000, size: 4)
    }
  }

  /// Each block's system and whether it is on.
  package var enabled: [UInt8: Bool] {
    var systems: [UInt8: Bool] = [:]
    for index in stride(from: 4, to: payload.count, by: 8) { systems[payload[index]] = payload[index + 4] & 1 != 0 }
    return systems
  }

  /// Turns systems on or off; a system without a block here is left as it is.
  package mutating func enable(_ systems: [UInt8: Bool]) {
    for index in stride(from: 4, to: payload.count, by: 8) {
      guard let on = systems[payload[index]] else { continue }
      payload[index + 4] = on ? payload[index + 4] | 1 : payload[index + 4] & ~1
    }
  }

  package var frame: UBXFrame { UBXFrame(messageClass: UBXLegacyMessage.gnss.0, id: UBXLegacyMessage.gnss.1, payload: payload) }
  package static var poll: UBXFrame { .poll(UBXLegacyMessage.gnss) }
}

/// `CFG-NAV5`: the navigation engine's settings, of which gpsbridge sets the dynamic model.
package struct UBXNavigationSettings: Hashable, Sendable {
  package var payload: [UInt8]

  package init?(_ frame: UBXFrame) {
    guard let payload = frame.block(UBXLegacyMessage.navigation, count: 36) else { return nil }
    self.payload = Array(payload.prefix(36))
  }

  /// Only the dynamic model applied (the mask's first bit); the rest stays as it is.
  package init(dynamicModel: UInt8) {
    payload = [0x01, 0x00, dynamicModel] + Array(repeating: 0, count: 33)
  }

  package var dynamicModel: UInt8 { payload[2] }

  package var frame: UBXFrame {
    UBXFrame(messageClass: UBXLegacyMessage.navigation.0, id: UBXLegacyMessage.navigation.1, payload: payload)
  }
  package static var poll: UBXFrame { .poll(UBXLegacyMessage.navigation) }
}

/// `CFG-TP5` for TIMEPULSE: its period and length in microseconds when locked to GNSS time.
package struct UBXTimePulseSettings: Hashable, Sendable {
  package var payload: [UInt8]

  package init?(_ frame: UBXFrame) {
    guard let payload = frame.block(UBXLegacyMessage.timePulse, count: 32), payload[0] == 0 else { return nil }
    self.payload = Array(payload.prefix(32))
  }

  /// A pulse every `period` µs, `width` µs long, before and after lock, active, locked to GNSS
  /// time, rising edge, aligned to the top of the second.
  package init(period: Int, width: Int) {
    payload = [0, 1, 0, 0] + Array(repeating: 0, count: 28)
    payload[littleEndian: 8, size: 4] = period
    payload[littleEndian: 16, size: 4] = width
    self.period = period
    self.width = width
    payload[littleEndian: 28, size: 4] = 0x77
  }

  /// Microseconds between pulses once locked to GNSS time (`freqPeriodLock`); the pulse before
  /// lock is left as the receiver has it.
  package var period: Int {
    get { payload[littleEndian: 12, size: 4] }
    set { payload[littleEndian: 12, size: 4] = newValue }
  }

  /// Microseconds high once locked (`pulseLenRatioLock`).
  package var width: Int {
    get { payload[littleEndian: 20, size: 4] }
    set { payload[littleEndian: 20, size: 4] = newValue }
  }

  /// Whether it counts in periods and lengths (µs), as gpsbridge sets it, rather than in
  /// frequency or a ratio of the period.
  package var isPeriodAndLength: Bool { payload[28] & 0x08 == 0 && payload[28] & 0x10 != 0 }

  package var frame: UBXFrame {
    UBXFrame(messageClass: UBXLegacyMessage.timePulse.0, id: UBXLegacyMessage.timePulse.1, payload: payload)
  }
  package static var poll: UBXFrame { .poll(UBXLegacyMessage.timePulse, [0]) }
}

extension UBXFrame {
  /// `CFG-CFG` saving the settings in effect (ports, messages, navigation, receiver manager)
  /// to battery-backed RAM and flash.
  package static var saveSettings: UBXFrame {
    let sections: UInt64 = 0x0000_001F
    return UBXFrame(
      messageClass: UBXLegacyMessage.saveLoad.0, id: UBXLegacyMessage.saveLoad.1,
      payload: littleEndian(0, size: 4) + littleEndian(sections, size: 4) + littleEndian(0, size: 4) + [0x03])
  }
}

extension Array where Element == UInt8 {
  /// The unsigned little-endian field of `size` bytes at `offset`, as UBX lays its fields out.
  package subscript(littleEndian offset: Int, size size: Int) -> Int {
    get { Int(UBXFrame.readLittleEndian(self, at: offset, size: size)) }
    set { replaceSubrange(offset..<(offset + size), with: UBXFrame.littleEndian(UInt64(newValue), size: size)) }
  }
}

/// `CFG-ITFM`: the interference (jamming) monitor, on or off; its thresholds and antenna
/// setting are written back as read.
package struct UBXInterferenceSettings: Hashable, Sendable {
  package var payload: [UInt8]

  package init?(_ frame: UBXFrame) {
    guard let payload = frame.block(UBXLegacyMessage.interference, count: 8) else { return nil }
    self.payload = Array(payload.prefix(8))
  }

  /// `config`'s `enable` bit (31).
  package var isEnabled: Bool {
    get { payload[3] & 0x80 != 0 }
    set { payload[3] = newValue ? payload[3] | 0x80 : payload[3] & 0x7F }
  }

  package var frame: UBXFrame {
    UBXFrame(messageClass: UBXLegacyMessage.interference.0, id: UBXLegacyMessage.interference.1, payload: payload)
  }
  package static var poll: UBXFrame { .poll(UBXLegacyMessage.interference) }
}
