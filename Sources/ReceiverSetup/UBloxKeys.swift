import Framing

/// The generation 9 configuration keys gpsbridge reads and writes (u-blox's interface
/// descriptions name them; the port is UART1, where a USB receiver's serial bridge or a
/// module's TX pin is wired).
enum UBloxKey {
  static let measurementRate = ConfigurationKey(0x3021_0001)  // CFG-RATE-MEAS, ms
  static let baudRate = ConfigurationKey(0x4052_0001)  // CFG-UART1-BAUDRATE
  static let dynamicModel = ConfigurationKey(0x2011_0021)  // CFG-NAVSPG-DYNMODEL
  static let outputsUBX = ConfigurationKey(0x1074_0001)  // CFG-UART1OUTPROT-UBX
  static let outputsNMEA = ConfigurationKey(0x1074_0002)  // CFG-UART1OUTPROT-NMEA
  static let pulsePeriod = ConfigurationKey(0x4005_0002)  // CFG-TP-PERIOD_TP1, µs
  static let pulseWidth = ConfigurationKey(0x4005_0004)  // CFG-TP-LEN_TP1, µs

  /// CFG-MSGOUT-UBX_NAV_PVT, _SAT, _DOP and _EOE on UART1: the navigation gpsbridge reads from
  /// a receiver sending UBX, which a receiver only sends when they are on.
  static let navigationMessages = [
    ConfigurationKey(0x2091_0007), ConfigurationKey(0x2091_0016), ConfigurationKey(0x2091_0039), ConfigurationKey(0x2091_0160),
  ]

  /// CFG-MSGOUT-NMEA_ID_…_UART1: how often (in epochs) each sentence is sent; 0 is never.
  static let sentences: [NMEASentenceType: ConfigurationKey] = [
    .gga: ConfigurationKey(0x2091_00BB), .gll: ConfigurationKey(0x2091_00CA), .gsa: ConfigurationKey(0x2091_00C0),
    .gsv: ConfigurationKey(0x2091_00C5), .rmc: ConfigurationKey(0x2091_00AC), .vtg: ConfigurationKey(0x2091_00B1),
    .zda: ConfigurationKey(0x2091_00D9),
  ]

  /// CFG-SIGNAL-…_ENA: whether each system is tracked.
  static let constellations: [SatelliteSystem: ConfigurationKey] = [
    .gps: ConfigurationKey(0x1031_001F), .sbas: ConfigurationKey(0x1031_0020), .galileo: ConfigurationKey(0x1031_0021),
    .beidou: ConfigurationKey(0x1031_0022), .qzss: ConfigurationKey(0x1031_0024), .glonass: ConfigurationKey(0x1031_0025),
  ]

  /// CFG-NAVSPG-DYNMODEL's values.
  static let dynamicModels: [DynamicModel: UInt64] = [
    .portable: 0, .stationary: 2, .pedestrian: 3, .automotive: 4, .sea: 5, .airborne: 6,
  ]

  /// The keys and values that make `settings`, in a fixed order.
  static func values(for settings: ReceiverSettings) -> [(ConfigurationKey, UInt64)] {
    var values: [(ConfigurationKey, UInt64)] = []
    if let rate = settings.rate { values.append((measurementRate, UInt64(1000 / rate))) }
    if let sentences = settings.sentences {
      for type in NMEASentenceType.allCases { values.append((Self.sentences[type]!, sentences.contains(type) ? 1 : 0)) }
    }
    if let constellations = settings.constellations {
      for system in SatelliteSystem.allCases { values.append((Self.constellations[system]!, constellations.contains(system) ? 1 : 0)) }
    }
    if let model = settings.dynamicModel { values.append((dynamicModel, dynamicModels[model]!)) }
    if let output = settings.outputProtocol {
      values.append((outputsNMEA, output == .ubx ? 0 : 1))
      values.append((outputsUBX, output == .nmea ? 0 : 1))
      if output != .nmea { values += navigationMessages.map { ($0, 1) } }
    }
    if let pulse = settings.timePulse {
      values.append((pulsePeriod, UInt64(pulse.period)))
      values.append((pulseWidth, UInt64(pulse.width)))
    }
    if let baud = settings.baudRate { values.append((baudRate, UInt64(baud))) }
    return values
  }

  /// Every key gpsbridge knows, for reading a receiver's settings whole.
  static var all: [ConfigurationKey] {
    values(
      for: ReceiverSettings(
        rate: 1, baudRate: 9600, sentences: [], constellations: [], dynamicModel: .portable, outputProtocol: .both,
        timePulse: TimePulse(period: 1, width: 1))
    ).map(\.0)
  }

  /// The settings `values` give; a setting whose keys are not all there is left out.
  static func settings(from values: [ConfigurationKey: UInt64]) -> ReceiverSettings {
    var settings = ReceiverSettings()
    if let milliseconds = values[measurementRate], milliseconds > 0 { settings.rate = Int((1000 + milliseconds / 2) / milliseconds) }
    if let baud = values[baudRate] { settings.baudRate = Int(baud) }
    if sentences.values.allSatisfy({ values[$0] != nil }) {
      settings.sentences = Set(sentences.filter { values[$0.value]! > 0 }.keys)
    }
    if constellations.values.allSatisfy({ values[$0] != nil }) {
      settings.constellations = Set(constellations.filter { values[$0.value]! > 0 }.keys)
    }
    if let model = values[dynamicModel] { settings.dynamicModel = dynamicModels.first { $0.value == model }?.key }
    if let nmea = values[outputsNMEA], let ubx = values[outputsUBX] {
      settings.outputProtocol = nmea > 0 && ubx > 0 ? .both : nmea > 0 ? .nmea : ubx > 0 ? .ubx : nil
    }
    if let period = values[pulsePeriod], let width = values[pulseWidth] {
      settings.timePulse = TimePulse(period: Int(period), width: Int(width))
    }
    return settings
  }
}
