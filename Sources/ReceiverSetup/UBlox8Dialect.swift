import Framing

/// u-blox M8 and older: a block a setting (`CFG-PRT`, `CFG-RATE`, `CFG-MSG`, `CFG-GNSS`,
/// `CFG-NAV5`, `CFG-TP5`), each polled, changed where gpsbridge changes it, and written back
/// whole; `CFG-CFG` saves. The blocks live in RAM until saved. The port's own block and
/// message rates are those of the port the host talks through (``port``).
struct UBlox8Dialect: ReceiverDialect {
  let link: SetupLink
  let identity: ReceiverIdentity
  /// The port the host talks through, as the receiver's answer to a `CFG-PRT` poll without a
  /// port said it; `nil` when it did not (UART1's settings are used then).
  let port: UBXPort?
  private var ours: UBXPort { port ?? .uart1 }

  init(_ link: SetupLink, version: UBXVersion, port: UBXPort?) {
    self.link = link
    identity = ReceiverIdentity(version)
    self.port = port
  }

  /// The dialect for a receiver whose port is found by asking it: a `CFG-PRT` poll without a
  /// port is answered with the settings of the port it came through.
  static func onItsPort(_ link: SetupLink, version: UBXVersion) async throws(SetupError) -> UBlox8Dialect {
    let answer: UBXPortSettings?
    do {
      answer = try await link.poll(UBXPortSettings.currentPortPoll, what: "CFG-PRT", UBXPortSettings.init)
    } catch .cannotTake {
      answer = nil
    } catch .noAnswer {
      answer = nil
    }
    return UBlox8Dialect(link, version: version, port: answer?.port)
  }

  var readsBack: Bool { true }

  /// `CFG-GNSS`'s system IDs.
  static let systems: [SatelliteSystem: UInt8] = [.gps: 0, .sbas: 1, .galileo: 2, .beidou: 3, .qzss: 5, .glonass: 6]
  /// `CFG-MSG`'s IDs of the NMEA sentences (class 0xF0).
  static let sentences: [NMEASentenceType: UInt8] = [.gga: 0x00, .gll: 0x01, .gsa: 0x02, .gsv: 0x03, .rmc: 0x04, .vtg: 0x05, .zda: 0x08]
  /// NAV-PVT, NAV-SAT, NAV-DOP, NAV-EOE: what it must send for its UBX to be read.
  static let navigation: [UInt8] = [0x07, 0x35, 0x04, 0x61]
  /// MON-HW and NAV-STATUS: what it says of jamming, its antenna and spoofing.
  static let integrityMessages: [(messageClass: UInt8, id: UInt8, name: String)] = [(0x0A, 0x09, "MON-HW"), (0x01, 0x03, "NAV-STATUS")]

  /// The M8's data sheet: 18 Hz from one system, 10 Hz from two or three at once, and at most
  /// three major systems; GPS and QZSS go together.
  func refusal(of change: ReceiverSettings, current: ReceiverSettings) -> String? {
    if change.baudRate != nil, let port, !port.hasBaudRate {
      return
        "The receiver is on its \(port) port, which has no baud rate (it carries what the receiver sends at any rate): leave out --baud."
    }
    let merged = current.merging(change)
    if let systems = change.constellations, systems.contains(.gps) != systems.contains(.qzss) {
      return "An M8 tracks GPS and QZSS together: name both or neither (\(systems.sorted().map(\.rawValue).joined(separator: ",")))."
    }
    guard let systems = merged.constellations, let rate = merged.rate else { return nil }
    let major = systems.intersection([.gps, .glonass, .galileo, .beidou])
    if major.count > 3 { return "An M8 tracks at most three of GPS, GLONASS, Galileo and BeiDou at once." }
    let fastest = major.count <= 1 ? 18 : 10
    guard rate <= fastest else {
      return
        "An M8 computes at most \(fastest) fixes a second from \(major.count) satellite systems (\(major.sorted().map(\.rawValue).joined(separator: ", "))): ask for \(fastest) Hz or less, or track fewer systems."
    }
    return nil
  }

  func read(measured: OutputMeasurement) async throws(SetupError) -> ReceiverSettings {
    // A block the model lacks (a u-blox 6 has no CFG-GNSS) leaves its setting out: a change to
    // it is then refused, and the rest still reads.
    func optional<Block>(_ read: () async throws(SetupError) -> Block) async throws(SetupError) -> Block? {
      do {
        return try await read()
      } catch .cannotTake {
        return nil
      }
    }
    var settings = ReceiverSettings()
    if let port = try await optional({ () throws(SetupError) in
      try await link.poll(UBXPortSettings.poll(ours), what: "CFG-PRT", UBXPortSettings.init)
    }) {
      settings.baudRate = port.baudRate
      let out = port.outputProtocols & 0x03
      settings.outputProtocol = out == 0x03 ? .both : out == 0x01 ? .ubx : out == 0x02 ? .nmea : nil
    }
    if let rate = try await optional({ () throws(SetupError) in
      try await link.poll(UBXRateSettings.poll, what: "CFG-RATE", UBXRateSettings.init)
    }),
      rate.measurementPeriod > 0
    {
      settings.rate = (1000 + rate.measurementPeriod / 2) / rate.measurementPeriod
    }
    var sentences: Set<NMEASentenceType>? = []
    for (type, id) in Self.sentences {
      guard let rate = try await optional({ () throws(SetupError) in try await messageRate(UBXLegacyMessage.nmeaClass, id) }) else {
        sentences = nil
        break
      }
      if rate[ours] > 0 { sentences?.insert(type) }
    }
    settings.sentences = sentences
    if let gnss = try await optional({ () throws(SetupError) in
      try await link.poll(UBXSystemSettings.poll, what: "CFG-GNSS", UBXSystemSettings.init)
    }) {
      settings.constellations = Set(Self.systems.filter { gnss.enabled[$0.value] == true }.keys)
    }
    if let navigation = try await optional({ () throws(SetupError) in
      try await link.poll(UBXNavigationSettings.poll, what: "CFG-NAV5", UBXNavigationSettings.init)
    }) {
      settings.dynamicModel = UBloxKey.dynamicModels.first { $0.value == UInt64(navigation.dynamicModel) }?.key
    }
    if let pulse = try await optional({ () throws(SetupError) in
      try await link.poll(UBXTimePulseSettings.poll, what: "CFG-TP5", UBXTimePulseSettings.init)
    }) {
      settings.timePulse = TimePulse(period: pulse.period, width: pulse.width)
    }
    // On while any part is: the monitor, or a message that says what it sees.
    var integrity: [Bool] = []
    if let monitor = try await optional({ () throws(SetupError) in
      try await link.poll(UBXInterferenceSettings.poll, what: "CFG-ITFM", UBXInterferenceSettings.init)
    }) {
      integrity.append(monitor.isEnabled)
    }
    for message in Self.integrityMessages {
      if let rate = try await optional({ () throws(SetupError) in try await messageRate(message.messageClass, message.id) }) {
        integrity.append(rate[ours] > 0)
      }
    }
    if !integrity.isEmpty { settings.integrity = integrity.contains(true) }
    return settings
  }

  /// The polls of the blocks `change` touches.
  private func polls(for change: ReceiverSettings) -> [UBXFrame] {
    var polls: [UBXFrame] = []
    if change.rate != nil { polls.append(UBXRateSettings.poll) }
    if change.sentences != nil {
      polls += Self.sentences.values.sorted().map { UBXMessageRate.poll(messageClass: UBXLegacyMessage.nmeaClass, id: $0) }
    }
    if change.constellations != nil { polls.append(UBXSystemSettings.poll) }
    if change.dynamicModel != nil { polls.append(UBXNavigationSettings.poll) }
    if change.timePulse != nil { polls.append(UBXTimePulseSettings.poll) }
    if change.outputProtocol != nil {
      polls.append(UBXPortSettings.poll(ours))
      polls += Self.navigation.map { UBXMessageRate.poll(messageClass: 0x01, id: $0) }
    }
    if change.integrity != nil {
      polls.append(UBXInterferenceSettings.poll)
      polls += Self.integrityMessages.map { UBXMessageRate.poll(messageClass: $0.messageClass, id: $0.id) }
    }
    return polls
  }

  /// The block that answers `poll`: the same message, starting with what the poll selected.
  private func block(answering poll: UBXFrame) async throws(SetupError) -> UBXFrame {
    try await link.poll(poll, what: "the block of \(String(poll.messageClass, radix: 16)) \(String(poll.id, radix: 16))") { frame in
      frame.messageClass == poll.messageClass && frame.id == poll.id && frame.payload.count > poll.payload.count
        && frame.payload.starts(with: poll.payload) ? frame : nil
    }
  }

  /// The poll that asks for `block` again.
  private static func poll(for block: UBXFrame) -> UBXFrame {
    let selector =
      block.is(UBXLegacyMessage.messageRate) ? 2 : block.is(UBXLegacyMessage.port) || block.is(UBXLegacyMessage.timePulse) ? 1 : 0
    return .poll((block.messageClass, block.id), Array(block.payload.prefix(selector)))
  }

  func snapshot(of change: ReceiverSettings, measured: OutputMeasurement) async throws(SetupError) -> Snapshot {
    var blocks: [UBXFrame] = []
    for poll in polls(for: change) {
      do {
        blocks.append(try await block(answering: poll))
      } catch .cannotTake where change.integrity != nil && poll.is(UBXLegacyMessage.interference) {
        // A model without the monitor (refused when read) has nothing of it to put back.
      }
    }
    return Snapshot(blocks: blocks)
  }

  func restore(_ snapshot: Snapshot, saved: Bool) async -> Bool {
    // Each block written back as it was polled; the port's at the speed it is at now (the baud
    // rate has its own way back).
    func now(_ block: UBXFrame) -> UBXFrame {
      guard var port = UBXPortSettings(block), let speed = link.lineSpeed else { return block }
      port.baudRate = speed
      return port.frame
    }
    for block in snapshot.blocks {
      do {
        try await link.setAcknowledged(now(block), what: "the block of \(String(block.id, radix: 16))")
      } catch {
        // Refused: a receiver that refused the change refuses its undoing too; it reads back.
        guard case .refused = error else { return false }
      }
    }
    if saved {
      do {
        try await link.setAcknowledged(.saveSettings, what: "CFG-CFG")
      } catch {
        guard case .refused = error else { return false }
      }
    }
    for block in snapshot.blocks {
      guard let again = try? await self.block(answering: Self.poll(for: block)), again.payload == now(block).payload else { return false }
    }
    return true
  }

  func apply(_ change: ReceiverSettings, over current: ReceiverSettings) async throws(SetupError) -> [String] {
    if let rate = change.rate {
      var block = try await link.poll(UBXRateSettings.poll, what: "CFG-RATE", UBXRateSettings.init)
      block.measurementPeriod = 1000 / rate
      try await link.setAcknowledged(block.frame, what: "CFG-RATE (\(1000 / rate) ms)")
    }
    if let sentences = change.sentences {
      for (type, id) in Self.sentences.sorted(by: { $0.value < $1.value }) {
        try await setMessageRate(
          UBXLegacyMessage.nmeaClass, id, sentences.contains(type) ? 1 : 0, keepingRate: true, what: "CFG-MSG (\(type.rawValue))")
      }
    }
    if let systems = change.constellations {
      var block = try await link.poll(UBXSystemSettings.poll, what: "CFG-GNSS", UBXSystemSettings.init)
      let known = block.enabled
      for system in systems where known[Self.systems[system]!] == nil {
        throw .cannotTake("This receiver has no \(system.rawValue) (CFG-GNSS lists no block for it).")
      }
      block.enable(Dictionary(uniqueKeysWithValues: Self.systems.map { ($0.value, systems.contains($0.key)) }))
      try await link.setAcknowledged(block.frame, what: "CFG-GNSS (\(systems.sorted().map(\.rawValue).joined(separator: ",")))")
    }
    if let model = change.dynamicModel {
      let block = UBXNavigationSettings(dynamicModel: UInt8(UBloxKey.dynamicModels[model]!))
      try await link.setAcknowledged(block.frame, what: "CFG-NAV5 (\(model.rawValue))")
    }
    if let pulse = change.timePulse {
      var block = try await link.poll(UBXTimePulseSettings.poll, what: "CFG-TP5", UBXTimePulseSettings.init)
      guard block.isPeriodAndLength else {
        throw .cannotTake("Its time pulse is set as a frequency or a duty cycle (CFG-TP5): gpsbridge sets a period and a length only.")
      }
      block.period = pulse.period
      block.width = pulse.width
      try await link.setAcknowledged(block.frame, what: "CFG-TP5 (\(pulse.period) µs, \(pulse.width) µs)")
    }
    if let output = change.outputProtocol {
      if output != .nmea {
        for id in Self.navigation { try await setMessageRate(0x01, id, 1, what: "CFG-MSG (NAV 0x\(String(id, radix: 16)))") }
      }
      var port = try await link.poll(UBXPortSettings.poll(ours), what: "CFG-PRT", UBXPortSettings.init)
      port.outputProtocols = port.outputProtocols & ~0x03 | (output == .nmea ? 0x02 : output == .ubx ? 0x01 : 0x03)
      try await link.setAcknowledged(port.frame, what: "CFG-PRT (\(output.rawValue) out)")
    }
    guard let on = change.integrity else { return [] }
    return try await setIntegrity(on)
  }

  /// The monitor (CFG-ITFM) and its messages (CFG-MSG), each on its own: a part the receiver
  /// refuses (some firmware refuses CFG-ITFM on every boot) is said and the rest set; all
  /// refused is a refusal.
  private func setIntegrity(_ on: Bool) async throws(SetupError) -> [String] {
    var refused: [String] = []
    do {
      var monitor = try await link.poll(UBXInterferenceSettings.poll, what: "CFG-ITFM", UBXInterferenceSettings.init)
      monitor.isEnabled = on
      try await link.setAcknowledged(monitor.frame, what: "CFG-ITFM (\(on ? "on" : "off"))")
    } catch .refused, .cannotTake {
      refused.append("CFG-ITFM")
    }
    for message in Self.integrityMessages {
      do {
        try await setMessageRate(message.messageClass, message.id, on ? 1 : 0, what: "CFG-MSG (\(message.name))")
      } catch .refused, .cannotTake {
        refused.append("CFG-MSG (\(message.name))")
      }
    }
    guard refused.count < 1 + Self.integrityMessages.count else { throw .refused(request: refused.joined(separator: ", ")) }
    return refused.map { "the receiver refused \($0) (a firmware without it, or one that refuses it): left as it was, the rest set" }
  }

  func requestLineSpeed(_ speed: Int, current: ReceiverSettings) async throws(SetupError) {
    var port = try await link.poll(UBXPortSettings.poll(ours), what: "CFG-PRT", UBXPortSettings.init)
    guard port.port.hasBaudRate else { throw .cannotTake("The receiver's \(port.port) port has no baud rate.") }
    port.baudRate = speed
    _ = try await link.send(port.frame.bytes)
  }

  func answers(within time: Duration) async -> Bool { await link.answersVersionPoll(within: time) }

  func save(_ settings: ReceiverSettings, current: ReceiverSettings) async throws(SetupError) {
    try await link.setAcknowledged(.saveSettings, what: "CFG-CFG (save to battery-backed RAM and flash)")
  }

  private func messageRate(_ messageClass: UInt8, _ id: UInt8) async throws(SetupError) -> UBXMessageRate {
    try await link.poll(UBXMessageRate.poll(messageClass: messageClass, id: id), what: "CFG-MSG") { frame in
      UBXMessageRate(frame).flatMap { $0.messageClass == messageClass && $0.id == id ? $0 : nil }
    }
  }

  /// Sets a message's rate on the host's port; `keepingRate` keeps a rate already on (GSV every
  /// five epochs stays so) when it is turned on.
  private func setMessageRate(_ messageClass: UInt8, _ id: UInt8, _ rate: UInt8, keepingRate: Bool = false, what: String)
    async throws(SetupError)
  {
    var block = try await messageRate(messageClass, id)
    block[ours] = keepingRate && rate > 0 && block[ours] > 0 ? block[ours] : rate
    try await link.setAcknowledged(block.frame, what: what)
  }
}
