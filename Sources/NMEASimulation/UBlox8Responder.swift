import Framing

/// A simulated u-blox M8's configuration, as the real one keeps it: a block a setting
/// (`CFG-PRT`, `CFG-RATE`, `CFG-MSG`, `CFG-GNSS`, `CFG-NAV5`, `CFG-TP5`), each answered to a
/// poll with the block and `ACK-ACK`, set by writing it back whole (`ACK-ACK`, or `ACK-NAK` for
/// a value it cannot take), and saved by `CFG-CFG`. It knows nothing of generation 9's
/// `CFG-VALGET` and refuses it.
public struct UBlox8Responder: ReceiverResponder {
  public var fault: ResponderFault?
  public var version = UBXVersion(
    software: "ROM CORE 3.01 (107888)", hardware: "00080000",
    extensions: ["FWVER=SPG 3.01", "PROTVER=18.00", "MOD=NEO-M8N", "GPS;GLO;GAL;BDS", "SBAS;IMES;QZSS"])

  /// The blocks in effect.
  public struct Blocks: Hashable, Sendable {
    /// `CFG-PRT` of UART1, and of the USB port.
    public var port: [UInt8]
    public var usbPort: [UInt8]
    public var rate: [UInt8]
    /// `CFG-MSG` rates per port, by class and ID.
    public var messages: [UInt16: [UInt8]]
    public var gnss: [UInt8]
    public var navigation: [UInt8]
    public var timePulse: [UInt8]
    /// `CFG-ITFM`: the interference monitor (off at first).
    public var interference: [UInt8]
  }
  public private(set) var ram: Blocks
  /// What was in effect at start, and what `CFG-CFG` saved (nothing until it does).
  public let initial: Blocks
  public private(set) var saved: Blocks?
  private var frozenOutput: Blocks?
  private var changed = false
  public private(set) var lineSpeed: Int?
  public var hostSpeed: Int?
  /// The port the host talks through (UART1 or USB): its own block and message rates say what
  /// it sends.
  package let hostPort: UBXPort

  /// An M8 at its defaults: 1 Hz (or `rate`), GGA GLL GSA GSV RMC VTG on UART1 and USB, GPS,
  /// SBAS, QZSS and GLONASS, NMEA out, its UART1 at 9600 baud (or `baud`); read on UART1, or
  /// with `onUSB` on its USB port.
  /// With `refusesInterferenceMonitor`, a firmware that refuses `CFG-ITFM` changes (some do, on
  /// every boot): it answers polls, and NAKs a change.
  public init(rate: Int = 1, baud: Int = 9600, fault: ResponderFault? = nil, onUSB: Bool = false, refusesInterferenceMonitor: Bool = false)
  {
    self.fault = fault
    self.refusesInterferenceMonitor = refusesInterferenceMonitor
    hostPort = onUSB ? .usb : .uart1
    if fault == .claimsAnotherGeneration {
      version.extensions = ["FWVER=HPG 1.32", "PROTVER=27.31", "MOD=ZED-F9P"]
    }
    var port = [UInt8(1), 0, 0, 0, 0xC0, 0x08, 0, 0] + Self.bytes(baud, 4) + [0x07, 0, 0x02, 0, 0, 0, 0, 0]
    port[12] = 0x07
    var messages: [UInt16: [UInt8]] = [:]
    for id: UInt8 in [0x00, 0x01, 0x02, 0x03, 0x04, 0x05] { messages[0xF000 | UInt16(id)] = [0, 1, 0, 1, 0, 0] }
    for id: UInt8 in [0x08] { messages[0xF000 | UInt16(id)] = [0, 0, 0, 0, 0, 0] }
    for id: UInt8 in [0x07, 0x35, 0x04, 0x61] { messages[0x0100 | UInt16(id)] = [0, 0, 0, 0, 0, 0] }
    // MON-HW and NAV-STATUS, off.
    for key: UInt16 in [0x0A09, 0x0103] { messages[key] = [0, 0, 0, 0, 0, 0] }
    // GPS 8/16, SBAS 1/3, Galileo 4/8 (off), BeiDou 8/16 (off), IMES 0/8 (off), QZSS 0/3, GLONASS 8/14.
    var gnss: [UInt8] = [0, 32, 32, 7]
    for (system, reserved, maximum, on) in [
      (0, 8, 16, true), (1, 1, 3, true), (2, 4, 8, false), (3, 8, 16, false), (4, 0, 8, false), (5, 0, 3, true), (6, 8, 14, true),
    ] {
      gnss += [UInt8(system), UInt8(reserved), UInt8(maximum), 0] + Self.bytes(on ? 0x0101_0001 : 0x0101_0000, 4)
    }
    // Mask all, portable, auto 2D/3D, 5° elevation, PDOP and TDOP 25.0, 100 m accuracy masks.
    var navigation = [UInt8](repeating: 0, count: 36)
    navigation.replaceSubrange(0..<4, with: [0xFF, 0xFF, 0, 3])
    navigation[12] = 5
    navigation.replaceSubrange(14..<22, with: Self.bytes(250, 2) + Self.bytes(250, 2) + Self.bytes(100, 2) + Self.bytes(300, 2))
    // TIMEPULSE: 1 s, 100 ms when locked; active, locked to GNSS, aligned, rising.
    let timePulse =
      [UInt8(0), 1, 0, 0, 50, 0, 0, 0] + Self.bytes(1_000_000, 4) + Self.bytes(1_000_000, 4) + Self.bytes(0, 4)
      + Self.bytes(100_000, 4) + Self.bytes(0, 4) + Self.bytes(0x77, 4)
    // The USB port: no speed; UBX, NMEA and RTCM 3 in, NMEA out.
    let usbPort: [UInt8] = [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x07, 0, 0x02, 0, 0, 0, 0, 0]
    ram = Blocks(
      port: port, usbPort: usbPort, rate: Self.bytes(1000 / max(rate, 1), 2) + [1, 0, 1, 0], messages: messages, gnss: gnss,
      navigation: navigation,
      timePulse: timePulse,
      // Thresholds 3 and 15, the default algorithm bits, disabled; general bits 0x31E, the
      // antenna setting unknown.
      interference: Self.bytes(0x16B156 << 9 | 15 << 4 | 3, 4) + Self.bytes(0x31E, 4))
    initial = ram
  }

  private let refusesInterferenceMonitor: Bool

  /// The integrity messages it sends on its port now (MON-HW, NAV-STATUS).
  public var integrityMessages: Set<IntegrityMessage> {
    var messages: Set<IntegrityMessage> = []
    if (output.messages[0x0A09]?[Int(hostPort.rawValue)] ?? 0) > 0 { messages.insert(.hardwareMonitor) }
    if (output.messages[0x0103]?[Int(hostPort.rawValue)] ?? 0) > 0 { messages.insert(.navigationStatus) }
    return messages
  }

  static func bytes(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

  private var output: Blocks { frozenOutput ?? ram }

  public var rate: Double { 1000 / Double(max(output.rate[littleEndian: 0, size: 2], 1)) }
  /// The host's port's own block.
  private var hostBlock: [UInt8] { hostPort == .usb ? output.usbPort : output.port }
  public var sendsNMEA: Bool { hostBlock[14] & 0x02 != 0 }
  public var sendsUBX: Bool { hostBlock[14] & 0x01 != 0 && (output.messages[0x0107]?[Int(hostPort.rawValue)] ?? 0) > 0 }
  public var baudRate: Int { ram.port[littleEndian: 8, size: 4] }

  static let sentenceIDs: [String: UInt8] = ["GGA": 0, "GLL": 1, "GSA": 2, "GSV": 3, "RMC": 4, "VTG": 5, "ZDA": 8]
  static let systemIDs: [UInt8: String] = [0: "gps", 1: "sbas", 2: "galileo", 3: "beidou", 5: "qzss", 6: "glonass"]

  public var sentences: Set<String> {
    Set(Self.sentenceIDs.filter { (output.messages[0xF000 | UInt16($0.value)]?[Int(hostPort.rawValue)] ?? 0) > 0 }.keys)
  }

  public var systems: Set<String> {
    var systems: Set<String> = []
    for index in stride(from: 4, to: output.gnss.count, by: 8) where output.gnss[index + 4] & 1 != 0 {
      if let name = Self.systemIDs[output.gnss[index]] { systems.insert(name) }
    }
    return systems
  }

  public func filter(_ epoch: [UInt8]) -> [UInt8] {
    sendsNMEA ? EpochFilter.keep(epoch, sentences: sentences, systems: systems) : []
  }

  public mutating func respond(to sentence: ProprietarySentence) -> [UInt8] { [] }

  public mutating func respond(to frame: UBXFrame) -> [UInt8] { handle(frame).flatMap(\.bytes) }

  private func ack(_ frame: UBXFrame, _ accepted: Bool) -> [UBXFrame] { [.acknowledgement(of: frame, accepted: accepted)] }

  /// The answers to `frame`.
  public mutating func handle(_ frame: UBXFrame) -> [UBXFrame] {
    if fault == .silent || (fault == .silentAfterChange && changed) { return [] }
    if frame.is(UBXMessage.monitorVersion), frame.payload.isEmpty { return [version.frame] }
    guard frame.messageClass == 0x06 else { return [] }
    let payload = frame.payload
    func answer(_ block: [UInt8]) -> [UBXFrame] {
      [UBXFrame(messageClass: frame.messageClass, id: frame.id, payload: block), .acknowledgement(of: frame, accepted: true)]
    }
    switch frame.id {
    case 0x00:  // CFG-PRT
      // Without a port: the port the poll came through.
      if payload.isEmpty { return answer(hostPort == .usb ? ram.usbPort : ram.port) }
      if payload.count == 1, payload[0] == 1 { return answer(ram.port) }
      if payload.count == 1, payload[0] == 3 { return answer(ram.usbPort) }
      if payload.count == 20, payload[0] == 3 { return change(frame) { $0.usbPort = payload } }
      guard payload.count == 20, payload[0] == 1, payload[littleEndian: 8, size: 4] >= 4800 else { return ack(frame, false) }
      let baud = payload[littleEndian: 8, size: 4]
      let ignored = fault == .ignoresBaudChange && baud != baudRate
      let answers = change(frame) { blocks in if !ignored { blocks.port = payload } }
      if fault != .refusesChanges, fault != .ignoresChanges, baud != initial.port[littleEndian: 8, size: 4] || lineSpeed != nil {
        lineSpeed = ignored ? (lineSpeed ?? hostSpeed) : baud
      }
      return answers
    case 0x08:  // CFG-RATE
      if payload.isEmpty { return answer(ram.rate) }
      guard payload.count == 6, payload[littleEndian: 0, size: 2] >= 50 else { return ack(frame, false) }
      return change(frame) { $0.rate = payload }
    case 0x01:  // CFG-MSG
      if payload.count == 2 { return answer(payload + (ram.messages[UInt16(payload[0]) << 8 | UInt16(payload[1])] ?? [0, 0, 0, 0, 0, 0])) }
      guard payload.count == 8 || payload.count == 3 else { return ack(frame, false) }
      let key = UInt16(payload[0]) << 8 | UInt16(payload[1])
      let hostPort = self.hostPort
      return change(frame) { blocks in
        var rates = blocks.messages[key] ?? [0, 0, 0, 0, 0, 0]
        // The short form sets the rate on the port it came through.
        if payload.count == 8 { rates = Array(payload[2..<8]) } else { rates[Int(hostPort.rawValue)] = payload[2] }
        blocks.messages[key] = rates
      }
    case 0x3E:  // CFG-GNSS
      if payload.isEmpty { return answer(ram.gnss) }
      guard payload.count >= 4, payload.count == 4 + 8 * Int(payload[3]) else { return ack(frame, false) }
      var merged = ram.gnss
      for index in stride(from: 4, to: payload.count, by: 8) {
        guard let at = stride(from: 4, to: merged.count, by: 8).first(where: { merged[$0] == payload[index] }) else {
          return ack(frame, false)
        }
        merged.replaceSubrange(at..<(at + 8), with: payload[index..<(index + 8)])
      }
      // At most three major systems at once; GPS and QZSS together.
      let on = Set(stride(from: 4, to: merged.count, by: 8).filter { merged[$0 + 4] & 1 != 0 }.map { merged[$0] })
      guard on.intersection([0, 2, 3, 6]).count <= 3, on.contains(0) == on.contains(5) else { return ack(frame, false) }
      return change(frame) { $0.gnss = merged }
    case 0x24:  // CFG-NAV5
      if payload.isEmpty { return answer(ram.navigation) }
      guard payload.count == 36, payload[0] & 1 == 0 || (payload[2] != 1 && payload[2] <= 10) else { return ack(frame, false) }
      return change(frame) { blocks in
        if payload[0] & 1 != 0 { blocks.navigation[2] = payload[2] }
      }
    case 0x31:  // CFG-TP5
      if payload.isEmpty || (payload.count == 1 && payload[0] == 0) { return answer(ram.timePulse) }
      guard payload.count == 32, payload[0] == 0 else { return ack(frame, false) }
      return change(frame) { $0.timePulse = payload }
    case 0x39:  // CFG-ITFM
      if payload.isEmpty { return answer(ram.interference) }
      guard payload.count == 8, !refusesInterferenceMonitor else { return ack(frame, false) }
      return change(frame) { $0.interference = payload }
    case 0x09:  // CFG-CFG
      guard payload.count == 12 || payload.count == 13 else { return ack(frame, false) }
      if payload[littleEndian: 4, size: 4] != 0 {
        if fault == .refusesSaving { return ack(frame, false) }
        saved = ram
      }
      return ack(frame, true)
    default:
      // CFG-VALGET, CFG-VALSET and the rest of generation 9: not this one's.
      return ack(frame, false)
    }
  }

  /// A change in RAM, as the fault lets it be.
  private mutating func change(_ frame: UBXFrame, _ apply: (inout Blocks) -> Void) -> [UBXFrame] {
    if fault == .refusesChanges { return ack(frame, false) }
    if fault != .ignoresChanges {
      if fault == .outputUnchanged, frozenOutput == nil { frozenOutput = ram }
      apply(&ram)
    }
    changed = true
    return ack(frame, true)
  }
}
