import Framing

/// The generation 9 configuration keys gpsbridge reads and writes (u-blox's interface
/// descriptions name them), for the port the host talks through: what a port sends is that
/// port's own keys (`CFG-MSGOUT-…_USB`, `CFG-USBOUTPROT-…`), so a USB receiver read on USB is
/// set on USB, and one on its serial line (a module's TX pin, a serial bridge) on UART1.
struct UBloxKey {
  /// The port whose keys these are.
  let port: UBXPort

  static let measurementRate = ConfigurationKey(0x3021_0001)  // CFG-RATE-MEAS, ms
  static let dynamicModel = ConfigurationKey(0x2011_0021)  // CFG-NAVSPG-DYNMODEL
  static let pulsePeriod = ConfigurationKey(0x4005_0002)  // CFG-TP-PERIOD_TP1, µs
  static let pulseWidth = ConfigurationKey(0x4005_0004)  // CFG-TP-LEN_TP1, µs

  /// CFG-UART1-BAUDRATE, CFG-UART2-BAUDRATE; a port without a baud rate (USB) has none.
  var baudRate: ConfigurationKey? {
    switch port {
    case .uart1: ConfigurationKey(0x4052_0001)
    case .uart2: ConfigurationKey(0x4053_0001)
    default: nil
    }
  }

  /// CFG-…OUTPROT-UBX and -NMEA: whether the port sends each protocol (I2C 0x72, UART1 0x74,
  /// UART2 0x76, USB 0x78, SPI 0x7A in the key's group).
  var outputsUBX: ConfigurationKey { ConfigurationKey(0x1072_0001 + 0x2_0000 * UInt32(port.rawValue)) }
  var outputsNMEA: ConfigurationKey { ConfigurationKey(0x1072_0002 + 0x2_0000 * UInt32(port.rawValue)) }

  /// A CFG-MSGOUT key for this port, from its UART1 key: the ports' keys follow each other,
  /// I2C, UART1, UART2, USB, SPI, as the ports are numbered.
  private func messageKey(_ uart1: UInt32) -> ConfigurationKey { ConfigurationKey(uart1 - 1 + UInt32(port.rawValue)) }

  /// CFG-MSGOUT-UBX_NAV_PVT, _SAT, _DOP and _EOE: the navigation gpsbridge reads from a
  /// receiver sending UBX, which a receiver only sends when they are on.
  var navigationMessages: [ConfigurationKey] { [0x2091_0007, 0x2091_0016, 0x2091_0039, 0x2091_0160].map(messageKey) }

  /// CFG-ITFM-ENABLE, the interference (jamming) monitor.
  static let interferenceMonitor = ConfigurationKey(0x1041_000D)

  /// The integrity settings' keys, with their names for people: the interference monitor, and
  /// CFG-MSGOUT-UBX_MON_RF, _NAV_STATUS and _SEC_SIG on this port. (A firmware without SEC-SIG
  /// lacks its key.)
  var integrity: [(key: ConfigurationKey, name: String)] {
    [
      (Self.interferenceMonitor, "CFG-ITFM-ENABLE"), (messageKey(0x2091_035A), "CFG-MSGOUT-UBX_MON_RF_\(port)"),
      (messageKey(0x2091_001B), "CFG-MSGOUT-UBX_NAV_STATUS_\(port)"), (messageKey(0x2091_0635), "CFG-MSGOUT-UBX_SEC_SIG_\(port)"),
    ]
  }

  /// CFG-MSGOUT-NMEA_ID_…: how often (in epochs) each sentence is sent; 0 is never.
  var sentences: [NMEASentenceType: ConfigurationKey] {
    [
      .gga: messageKey(0x2091_00BB), .gll: messageKey(0x2091_00CA), .gsa: messageKey(0x2091_00C0), .gsv: messageKey(0x2091_00C5),
      .rmc: messageKey(0x2091_00AC), .vtg: messageKey(0x2091_00B1), .zda: messageKey(0x2091_00D9),
    ]
  }

  /// CFG-SIGNAL-…_ENA: whether each system is tracked.
  static let constellations: [SatelliteSystem: ConfigurationKey] = [
    .gps: ConfigurationKey(0x1031_001F), .sbas: ConfigurationKey(0x1031_0020), .galileo: ConfigurationKey(0x1031_0021),
    .beidou: ConfigurationKey(0x1031_0022), .qzss: ConfigurationKey(0x1031_0024), .glonass: ConfigurationKey(0x1031_0025),
  ]

  /// CFG-NAVSPG-DYNMODEL's values.
  static let dynamicModels: [DynamicModel: UInt64] = [
    .portable: 0, .stationary: 2, .pedestrian: 3, .automotive: 4, .sea: 5, .airborne: 6,
  ]

  /// The keys and values that make `settings`, in a fixed order. (A baud rate on a port
  /// without one was refused before: it has no key here.)
  func values(for settings: ReceiverSettings) -> [(ConfigurationKey, UInt64)] {
    var values: [(ConfigurationKey, UInt64)] = []
    if let rate = settings.rate { values.append((Self.measurementRate, UInt64(1000 / rate))) }
    if let sentences = settings.sentences {
      let keys = self.sentences
      for type in NMEASentenceType.allCases { values.append((keys[type]!, sentences.contains(type) ? 1 : 0)) }
    }
    if let constellations = settings.constellations {
      for system in SatelliteSystem.allCases { values.append((Self.constellations[system]!, constellations.contains(system) ? 1 : 0)) }
    }
    if let model = settings.dynamicModel { values.append((Self.dynamicModel, Self.dynamicModels[model]!)) }
    if let output = settings.outputProtocol {
      values.append((outputsNMEA, output == .ubx ? 0 : 1))
      values.append((outputsUBX, output == .nmea ? 0 : 1))
      if output != .nmea { values += navigationMessages.map { ($0, 1) } }
    }
    if let pulse = settings.timePulse {
      values.append((Self.pulsePeriod, UInt64(pulse.period)))
      values.append((Self.pulseWidth, UInt64(pulse.width)))
    }
    if let baud = settings.baudRate, let key = baudRate { values.append((key, UInt64(baud))) }
    return values
  }

  /// Every key gpsbridge knows for this port, for reading a receiver's settings whole.
  var all: [ConfigurationKey] {
    values(
      for: ReceiverSettings(
        rate: 1, baudRate: 9600, sentences: [], constellations: [], dynamicModel: .portable, outputProtocol: .both,
        timePulse: TimePulse(period: 1, width: 1))
    ).map(\.0) + integrity.map(\.key)
  }

  /// The settings `values` give; a setting whose keys are not all there is left out.
  func settings(from values: [ConfigurationKey: UInt64]) -> ReceiverSettings {
    var settings = ReceiverSettings()
    if let milliseconds = values[Self.measurementRate], milliseconds > 0 {
      settings.rate = Int((1000 + milliseconds / 2) / milliseconds)
    }
    if let key = baudRate, let baud = values[key] { settings.baudRate = Int(baud) }
    let sentences = self.sentences
    if sentences.values.allSatisfy({ values[$0] != nil }) {
      settings.sentences = Set(sentences.filter { values[$0.value]! > 0 }.keys)
    }
    if Self.constellations.values.allSatisfy({ values[$0] != nil }) {
      settings.constellations = Set(Self.constellations.filter { values[$0.value]! > 0 }.keys)
    }
    if let model = values[Self.dynamicModel] { settings.dynamicModel = Self.dynamicModels.first { $0.value == model }?.key }
    if let nmea = values[outputsNMEA], let ubx = values[outputsUBX] {
      settings.outputProtocol = nmea > 0 && ubx > 0 ? .both : nmea > 0 ? .nmea : ubx > 0 ? .ubx : nil
    }
    if let period = values[Self.pulsePeriod], let width = values[Self.pulseWidth] {
      settings.timePulse = TimePulse(period: Int(period), width: Int(width))
    }
    // On while any of them is: a key the firmware refuses to set stays as it was.
    let integrity = self.integrity.compactMap { values[$0.key] }
    if !integrity.isEmpty { settings.integrity = integrity.contains { $0 != 0 } }
    return settings
  }
}
