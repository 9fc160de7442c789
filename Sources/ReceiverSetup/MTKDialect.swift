import Framing

/// MediaTek receivers: `PMTK` sentences, each answered by `PMTK001` with a flag (3 is done).
/// Their rate and sentences can be asked (`PMTK400`, `PMTK414`); the satellite systems they
/// track are read from their output (the talkers of their GSV), and their speed is the port's.
struct MTKDialect: ReceiverDialect {
  let link: SetupLink
  let identity: ReceiverIdentity

  init(_ link: SetupLink, release: String, model: String) {
    self.link = link
    identity = ReceiverIdentity(kind: .mediatek, model: model.isEmpty ? "MediaTek" : model, firmware: release)
  }

  var readsBack: Bool { true }

  /// `PMTK314`'s slots of the sentences gpsbridge knows.
  static let slots: [NMEASentenceType: Int] = Dictionary(
    uniqueKeysWithValues: NMEASentenceType.allCases.map { ($0, MTKSentence.sentenceSlots.firstIndex(of: $0.rawValue)!) })

  func refusal(of change: ReceiverSettings, current: ReceiverSettings) -> String? {
    if change.dynamicModel != nil || change.timePulse != nil || (change.outputProtocol.map { $0 != .nmea } ?? false) {
      return
        "A MediaTek receiver takes a rate, a baud rate, sentences and satellite systems from gpsbridge; it has no dynamic model, time pulse or UBX to set."
    }
    if let rate = change.rate, rate > 10 {
      return "A MediaTek receiver computes at most 10 fixes a second (PMTK220 takes 100 ms and more)."
    }
    if let systems = change.constellations, !systems.isSubset(of: [.gps, .glonass, .galileo, .beidou]) || !systems.contains(.gps) {
      return
        "A MediaTek receiver is told GPS with GLONASS, Galileo or BeiDou (PMTK353); SBAS and QZSS are not set that way, and GPS stays on."
    }
    return nil
  }

  func read(measured: OutputMeasurement) async throws(SetupError) -> ReceiverSettings {
    var settings = ReceiverSettings()
    let interval = try await link.exchange(MTKSentence.queryFixInterval) { MTKSentence.fixInterval($0) != nil }
    if let milliseconds = MTKSentence.fixInterval(interval), milliseconds > 0 {
      settings.rate = (1000 + milliseconds / 2) / milliseconds
    }
    let rates = try await sentenceRates()
    settings.sentences = Set(Self.slots.filter { $0.value < rates.count && rates[$0.value] > 0 }.keys)
    settings.constellations = measured.systems.isEmpty ? nil : measured.systems
    settings.baudRate = link.lineSpeed
    settings.outputProtocol = .nmea
    return settings
  }

  func apply(_ change: ReceiverSettings, over current: ReceiverSettings) async throws(SetupError) -> [String] {
    if let rate = change.rate { try await command(MTKSentence.fixInterval(1000 / rate)) }
    if let sentences = change.sentences {
      // The slots gpsbridge does not name stay as they are, and a sentence already on keeps
      // its rate (GSV every five fixes stays so).
      var rates = try await sentenceRates()
      for (type, slot) in Self.slots where slot < rates.count {
        rates[slot] = sentences.contains(type) ? max(rates[slot], 1) : 0
      }
      try await command(MTKSentence.sentenceRates(rates))
    }
    if let systems = change.constellations {
      try await command(
        MTKSentence.systems(
          gps: systems.contains(.gps), glonass: systems.contains(.glonass), galileo: systems.contains(.galileo),
          beidou: systems.contains(.beidou)))
    }
    return []
  }

  private func sentenceRates() async throws(SetupError) -> [Int] {
    MTKSentence.sentenceRates(try await link.exchange(MTKSentence.querySentenceRates) { MTKSentence.sentenceRates($0) != nil })!
  }

  private func fixInterval() async throws(SetupError) -> Int? {
    MTKSentence.fixInterval(try await link.exchange(MTKSentence.queryFixInterval) { MTKSentence.fixInterval($0) != nil })
  }

  func snapshot(of change: ReceiverSettings, measured: OutputMeasurement) async throws(SetupError) -> Snapshot {
    var snapshot = Snapshot()
    if change.rate != nil { snapshot.fixInterval = try await fixInterval() }
    if change.sentences != nil { snapshot.sentenceRates = try await sentenceRates() }
    if change.constellations != nil { snapshot.systems = measured.systems }
    return snapshot
  }

  func restore(_ snapshot: Snapshot, saved: Bool) async -> Bool {
    var commands: [ProprietarySentence] = []
    if let interval = snapshot.fixInterval { commands.append(MTKSentence.fixInterval(interval)) }
    if let rates = snapshot.sentenceRates { commands.append(MTKSentence.sentenceRates(rates)) }
    if let systems = snapshot.systems {
      commands.append(
        MTKSentence.systems(
          gps: systems.contains(.gps), glonass: systems.contains(.glonass), galileo: systems.contains(.galileo),
          beidou: systems.contains(.beidou)))
    }
    for sentence in commands {
      do {
        try await command(sentence)
      } catch {
        // Refused: what it reads back (and sends) decides.
        guard case .refused = error else { return false }
      }
    }
    // Its systems show in its output, which the transaction checks.
    if let interval = snapshot.fixInterval, (try? await fixInterval()) != interval { return false }
    if let rates = snapshot.sentenceRates, (try? await sentenceRates()) != rates { return false }
    return true
  }

  func requestLineSpeed(_ speed: Int, current: ReceiverSettings) async throws(SetupError) {
    _ = try await link.send(MTKSentence.baudRate(speed).bytes)
  }

  func answers(within time: Duration) async -> Bool {
    await link.answers(MTKSentence.queryRelease.bytes, within: time) { $0.sentence.flatMap(MTKSentence.release) != nil }
  }

  /// MediaTek keeps what it is told while it has power; gpsbridge sends it no save, and says so
  /// before anything is written.
  var saveRefusal: String? {
    "gpsbridge has no save for a MediaTek receiver: it keeps its settings while its backup battery lasts. Leave out --save."
  }

  func save(_ settings: ReceiverSettings, current: ReceiverSettings) async throws(SetupError) {
    throw .cannotTake(saveRefusal!)
  }

  /// Sends `sentence` and checks its `PMTK001` says it was done.
  private func command(_ sentence: ProprietarySentence) async throws(SetupError) {
    let number = Int(sentence.address.dropFirst(4))
    let answer = try await link.exchange(sentence) { MTKSentence.acknowledgement($0)?.command == number }
    let flag = MTKSentence.acknowledgement(answer)!.flag
    guard flag == 3 else {
      let why = [0: "invalid", 1: "unsupported", 2: "valid, but it failed"][flag] ?? "flag \(flag)"
      throw .refused(request: "\(sentence) (\(why))")
    }
  }
}
