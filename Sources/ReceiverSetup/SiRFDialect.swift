import Framing

/// SiRF receivers in NMEA mode: `PSRF100` (the port) and `PSRF103` (each sentence's interval,
/// in whole seconds). SiRF answers neither and can be asked nothing, so its settings are read
/// from its output and its speed is the port's; a change is proven by the output alone.
struct SiRFDialect: ReceiverDialect {
  let link: SetupLink
  let identity = ReceiverIdentity(kind: .sirf, model: "SiRF", firmware: "unknown (SiRF answers no query in NMEA mode)")

  init(_ link: SetupLink) {
    self.link = link
  }

  var readsBack: Bool { false }

  func refusal(of change: ReceiverSettings, current: ReceiverSettings) -> String? {
    if let rate = change.rate, rate != 1 {
      return "A SiRF in NMEA mode sends its sentences at whole seconds (PSRF103): 1 Hz is its only rate."
    }
    if change.constellations != nil { return "A SiRF tracks GPS and SBAS only; it has no satellite systems to choose." }
    if change.dynamicModel != nil || change.timePulse != nil || (change.outputProtocol.map { $0 != .nmea } ?? false) {
      return "A SiRF in NMEA mode takes a baud rate and sentences from gpsbridge; it has no dynamic model, time pulse or UBX to set."
    }
    return nil
  }

  func read(measured: OutputMeasurement) async throws(SetupError) -> ReceiverSettings {
    ReceiverSettings(
      rate: measured.rate.map { max(1, Int($0.rounded())) }, baudRate: link.lineSpeed, sentences: measured.sentences,
      outputProtocol: .nmea)
  }

  func apply(_ change: ReceiverSettings, over current: ReceiverSettings) async throws(SetupError) -> [String] {
    guard let sentences = change.sentences else { return [] }
    for type in NMEASentenceType.allCases {
      let sentence = SiRFSentence.sentenceRate(SiRFSentence.messageNumbers[type.rawValue]!, seconds: sentences.contains(type) ? 1 : 0)
      guard try await link.send(sentence.bytes) else { throw .noAnswer(request: sentence.description) }
      // SiRF reads its input slowly, and answers nothing: a pause between commands.
      await link.sleep(.milliseconds(50))
    }
    return []
  }

  /// Its sentences as its output showed them: a sentence sent less often than every second
  /// comes back every second (SiRF cannot be asked its rates).
  func snapshot(of change: ReceiverSettings, measured: OutputMeasurement) async throws(SetupError) -> Snapshot {
    Snapshot(sentences: change.sentences == nil ? nil : measured.sentences)
  }

  /// Whether the commands went out; its output, which the transaction checks, says the rest.
  func restore(_ snapshot: Snapshot, saved: Bool) async -> Bool {
    guard let sentences = snapshot.sentences else { return true }
    return (try? await apply(ReceiverSettings(sentences: sentences), over: ReceiverSettings())) != nil
  }

  func requestLineSpeed(_ speed: Int, current: ReceiverSettings) async throws(SetupError) {
    _ = try await link.send(SiRFSentence.serialPort(baudRate: speed).bytes)
  }

  func answers(within time: Duration) async -> Bool { await link.hearsOutput(within: time) }

  /// SiRF keeps what `PSRF100` and `PSRF103` set in its battery-backed RAM by itself.
  func save(_ settings: ReceiverSettings, current: ReceiverSettings) async throws(SetupError) {}
  var savedWhere: String { "a SiRF keeps it in battery-backed RAM by itself" }
}
