import Framing

/// A simulated u-blox generation 9 receiver's configuration, as the real one keeps it: three
/// layers of keyed values (RAM in effect, battery-backed RAM, flash), `UBX-MON-VER`, and
/// answers to `CFG-VALGET` and `CFG-VALSET` as its interface description says: a value for each
/// key it has, `ACK-NAK` for a key it lacks, a layer mask, or a message it cannot parse.
///
/// A ``Fault`` makes it misbehave at one step of a transaction, for the tests that check a
/// change is rolled back.
public struct UBloxResponder: ReceiverResponder {
  /// Ways to misbehave.
  public typealias Fault = ResponderFault

  public var version = UBXVersion(
    software: "HPG 1.32", hardware: "00190000", extensions: ["ROM BASE 0x118B2060", "FWVER=HPG 1.32", "PROTVER=27.31", "MOD=ZED-F9P"])
  public var fault: Fault?
  /// The values in effect, and those saved.
  public private(set) var ram: [ConfigurationKey: UInt64]
  public private(set) var batteryBacked: [ConfigurationKey: UInt64] = [:]
  public private(set) var flash: [ConfigurationKey: UInt64] = [:]
  /// The output's settings when a fault keeps them from changing.
  private var frozenOutput: [ConfigurationKey: UInt64]?
  private var changed = false
  /// The port the host talks through: its own keys say what it sends (UART1's change nothing
  /// a host on USB sees).
  package let port: UBXPort
  /// Bytes each port received so far, as `UBX-MON-COMMS` tells them.
  package private(set) var received: [UBXPort: UInt32] = [.uart1: 0, .usb: 0]

  /// A receiver at its defaults: 1 Hz (or `rate`), GGA GLL GSA GSV RMC VTG, every system,
  /// NMEA out, its UART1 at 38400 baud (or `baud`); read on UART1, or with `onUSB` on its USB port.
  /// With `lacking`, a model without those keys: reading or setting one is refused whole.
  /// With `refusing`, a firmware that refuses to set those keys (it reads them): a change that
  /// names one is refused whole, as some refuse CFG-ITFM on every boot.
  public init(
    rate: Int = 1, baud: Int = 38_400, fault: Fault? = nil, lacking: Set<ConfigurationKey> = [], refusing: Set<ConfigurationKey> = [],
    onUSB: Bool = false
  ) {
    self.fault = fault
    self.refusing = refusing
    port = onUSB ? .usb : .uart1
    ram = Self.defaults.filter { !lacking.contains($0.key) }
    ram[Self.measurementRate] = UInt64(1000 / max(rate, 1))
    ram[Self.baudRate] = UInt64(baud)
    initial = ram
  }

  /// Keys it refuses to set.
  private let refusing: Set<ConfigurationKey>

  /// CFG-ITFM-ENABLE.
  package static let interferenceMonitor = ConfigurationKey(0x1041_000D)
  /// CFG-MSGOUT-UBX_MON_RF, _NAV_STATUS and _SEC_SIG on UART1.
  package static let integrityKeys: [IntegrityMessage: ConfigurationKey] = [
    .radioMonitor: ConfigurationKey(0x2091_035A), .navigationStatus: ConfigurationKey(0x2091_001B),
    .signalSecurity: ConfigurationKey(0x2091_0635),
  ]

  /// The settings in effect at start: what a rolled-back change leaves.
  public private(set) var initial: [ConfigurationKey: UInt64] = [:]

  static let measurementRate = ConfigurationKey(0x3021_0001)
  static let baudRate = ConfigurationKey(0x4052_0001)

  public private(set) var lineSpeed: Int?
  /// CFG-UART1OUTPROT-NMEA and -UBX, CFG-USBOUTPROT-NMEA and -UBX.
  static func outputsNMEA(_ port: UBXPort) -> ConfigurationKey { ConfigurationKey(port == .usb ? 0x1078_0002 : 0x1074_0002) }
  static func outputsUBX(_ port: UBXPort) -> ConfigurationKey { ConfigurationKey(port == .usb ? 0x1078_0001 : 0x1074_0001) }
  /// CFG-MSGOUT-NMEA_ID_…_UART1 (the USB port's keys are two on).
  static let sentenceKeys: [String: ConfigurationKey] = [
    "GGA": ConfigurationKey(0x2091_00BB), "GLL": ConfigurationKey(0x2091_00CA), "GSA": ConfigurationKey(0x2091_00C0),
    "GSV": ConfigurationKey(0x2091_00C5), "RMC": ConfigurationKey(0x2091_00AC), "VTG": ConfigurationKey(0x2091_00B1),
    "ZDA": ConfigurationKey(0x2091_00D9),
  ]
  /// A CFG-MSGOUT key of UART1 as `port` has it.
  static func onPort(_ key: ConfigurationKey, _ port: UBXPort) -> ConfigurationKey {
    ConfigurationKey(key.rawValue - 1 + UInt32(port.rawValue))
  }

  /// The keys this model has, at their defaults.
  static let defaults: [ConfigurationKey: UInt64] = {
    var values: [ConfigurationKey: UInt64] = [
      measurementRate: 1000, ConfigurationKey(0x3021_0002): 1,  // CFG-RATE-NAV
      ConfigurationKey(0x4052_0001): 38_400,  // CFG-UART1-BAUDRATE
      ConfigurationKey(0x2011_0021): 0,  // CFG-NAVSPG-DYNMODEL: portable
      outputsUBX(.uart1): 0, outputsNMEA(.uart1): 1, outputsUBX(.usb): 0, outputsNMEA(.usb): 1,
      ConfigurationKey(0x4005_0002): 1_000_000, ConfigurationKey(0x4005_0004): 100_000,  // CFG-TP-PERIOD_TP1, LEN_TP1
    ]
    for (name, key) in sentenceKeys {
      for port in [UBXPort.uart1, .usb] { values[onPort(key, port)] = name == "ZDA" ? 0 : 1 }
    }
    for id: UInt32 in [0x07, 0x16, 0x39, 0x160] {  // CFG-MSGOUT-UBX_NAV_*_UART1 and _USB
      for port in [UBXPort.uart1, .usb] { values[onPort(ConfigurationKey(0x2091_0000 | id), port)] = 0 }
    }
    for id: UInt32 in [0x1F, 0x20, 0x21, 0x22, 0x24, 0x25] { values[ConfigurationKey(0x1031_0000 | id)] = 1 }  // CFG-SIGNAL-*_ENA
    values[interferenceMonitor] = 0
    for key in integrityKeys.values {
      for port in [UBXPort.uart1, .usb] { values[onPort(key, port)] = 0 }
    }
    return values
  }()

  /// The integrity messages it sends on its port now.
  public var integrityMessages: Set<IntegrityMessage> {
    let values = frozenOutput ?? ram
    return Set(Self.integrityKeys.filter { (values[Self.onPort($0.value, port)] ?? 0) != 0 }.keys)
  }

  public var rate: Double {
    let milliseconds = (frozenOutput ?? ram)[Self.measurementRate] ?? 1000
    return 1000 / Double(max(milliseconds, 1))
  }

  /// Whether it sends NMEA now.
  public var sendsNMEA: Bool { ((frozenOutput ?? ram)[Self.outputsNMEA(port)] ?? 1) != 0 }

  /// UBX out on its port, and NAV-PVT among the messages it sends.
  public var sendsUBX: Bool {
    let values = frozenOutput ?? ram
    return (values[Self.outputsUBX(port)] ?? 0) != 0 && (values[Self.onPort(ConfigurationKey(0x2091_0007), port)] ?? 0) != 0
  }

  /// The standard sentences it sends now, by type (`GGA`…).
  public var sentences: Set<String> {
    let values = frozenOutput ?? ram
    return Set(Self.sentenceKeys.filter { (values[Self.onPort($0.value, port)] ?? 0) != 0 }.keys)
  }

  /// CFG-SIGNAL-…_ENA's keys, by system.
  static let systemKeys: [String: ConfigurationKey] = [
    "gps": ConfigurationKey(0x1031_001F), "sbas": ConfigurationKey(0x1031_0020), "galileo": ConfigurationKey(0x1031_0021),
    "beidou": ConfigurationKey(0x1031_0022), "qzss": ConfigurationKey(0x1031_0024), "glonass": ConfigurationKey(0x1031_0025),
  ]

  /// The satellite systems it tracks now.
  public var systems: Set<String> {
    let values = frozenOutput ?? ram
    return Set(Self.systemKeys.filter { (values[$0.value] ?? 0) != 0 }.keys)
  }

  public func filter(_ epoch: [UInt8]) -> [UInt8] {
    sendsNMEA ? EpochFilter.keep(epoch, sentences: sentences, systems: systems) : []
  }

  public mutating func respond(to frame: UBXFrame) -> [UInt8] { handle(frame).flatMap(\.bytes) }

  /// Generation 9 reads no proprietary NMEA: it ignores it.
  public mutating func respond(to sentence: ProprietarySentence) -> [UInt8] { [] }

  public var hostSpeed: Int?

  /// The answers to `frame`, a command written to the receiver.
  public mutating func handle(_ frame: UBXFrame) -> [UBXFrame] {
    if fault == .silent || (fault == .silentAfterChange && changed) { return [] }
    received[port, default: 0] &+= UInt32(frame.bytes.count)
    if frame.is(UBXMessage.monitorVersion), frame.payload.isEmpty { return [version.frame] }
    if frame.is(UBXCommunications.message), frame.payload.isEmpty { return [UBXCommunications(received: received).frame] }
    guard let request = frame.configurationRequest else {
      return frame.is(UBXMessage.valueGet) || frame.is(UBXMessage.valueSet) ? [.acknowledgement(of: frame, accepted: false)] : []
    }
    // A key this model lacks refuses the whole message, as the real one does.
    guard request.keys.allSatisfy({ initial[$0] != nil }) else { return [.acknowledgement(of: frame, accepted: false)] }
    if frame.is(UBXMessage.valueGet) {
      let layer = request.layer == 0 ? ram : request.layer == 1 ? batteryBacked : request.layer == 2 ? flash : Self.defaults
      let values = request.keys.compactMap { key in layer[key].map { (key, $0) } }
      return [.valueGetAnswer(values, layer: ConfigurationLayer(rawValue: request.layer) ?? .ram)]
    }
    let mask = request.layer
    guard mask & 0x07 != 0 else { return [.acknowledgement(of: frame, accepted: false)] }
    if mask & 0x01 != 0 {
      if fault == .refusesChanges || !refusing.isDisjoint(with: request.values.keys) {
        return [.acknowledgement(of: frame, accepted: false)]
      }
      if fault != .ignoresChanges {
        if fault == .outputUnchanged, frozenOutput == nil { frozenOutput = ram }
        var values = request.values
        if let baud = values[Self.baudRate] {
          if fault == .ignoresBaudChange {
            values[Self.baudRate] = nil
            lineSpeed = lineSpeed ?? hostSpeed
          } else {
            lineSpeed = Int(baud)
          }
        }
        ram.merge(values) { $1 }
      }
      changed = true
    }
    if mask & 0x06 != 0 {
      if fault == .refusesSaving { return [.acknowledgement(of: frame, accepted: false)] }
      if mask & 0x02 != 0 { batteryBacked.merge(request.values) { $1 } }
      if mask & 0x04 != 0 { flash.merge(request.values) { $1 } }
    }
    return [.acknowledgement(of: frame, accepted: true)]
  }
}
