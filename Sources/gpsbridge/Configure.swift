import FoundationEssentials
import GPSLocation
import ReceiverSetup

/// `gpsbridge configure`: the receiver's settings shown, or changed as a transaction that
/// rolls back (``ReceiverSetup``). The port is read as any run reads it (autobaud finds its
/// rate); the commands go out on the same session.
func configure(_ options: ConfigureOptions) async -> Int32 {
  let receiver = Receiver(SerialSource(path: options.device))
  let settled = Shared(false)
  let problems = Shared<[String]>([])
  // Wanting fixes keeps the session going while the work lasts.
  let listener = receiver.listen(wanting: .fixes) { event in
    switch event {
    case .lineSpeed: settled.withLock { $0 = true }
    case .notice(let notice): Terminal.diagnostic("gpsbridge: \(notice)")
    case .status(.failed(let error)), .status(.stopped(let error)): problems.withLock { $0.append(error.message) }
    default: break
    }
  }
  let status = await configure(receiver, options, settled: settled, problems: problems)
  // The session ends before the program does: the port closed with its settings as they
  // were, its lock released (a process that exits first leaves the line at its last speed).
  receiver.stopListening(listener)
  await receiver.sessionClosed()
  return status
}

/// The work of `configure` on a receiver that is running.
private func configure(
  _ receiver: Receiver, _ options: ConfigureOptions, settled: Shared<Bool>, problems: Shared<[String]>
) async -> Int32 {
  // Until autobaud has found the receiver's rate (a fixed rate is known at once).
  var waited = 0
  while !settled.withLock({ $0 }), waited < 300, !Task.isCancelled {
    guard await sleepOrCancel(.milliseconds(50)) else { break }
    waited += 1
  }
  guard settled.withLock({ $0 }) else {
    let why = problems.withLock { $0.last } ?? "nothing readable arrived within 15 s."
    return refuse("cannot talk to the receiver at \(options.device): \(why)", json: options.json)
  }
  let setup = ReceiverSetup(receiver)
  do {
    if options.show {
      let (version, settings) = try await setup.currentSettings()
      Terminal.write(options.json ? encodedJSON(SettingsJSON(version, settings)) + "\n" : describe(version, settings))
      return 0
    }
    let report = try await setup.configure(options.change, save: options.save, dryRun: options.dryRun) { message in
      Terminal.diagnostic("gpsbridge: \(message)")
    }
    Terminal.write(options.json ? encodedJSON(ReportJSON(report)) + "\n" : describe(report))
    return 0
  } catch {
    return refuse("\(error)", json: options.json)
  }
}

/// Says why nothing was done, on stderr, and with `--json` on stdout too (`{"error": …}`), so
/// a program reading the JSON gets an answer either way; status 1.
private func refuse(_ message: String, json: Bool) -> Int32 {
  Terminal.diagnostic("Error: \(message)")
  if json { Terminal.write(encodedJSON(Refusal(error: message)) + "\n") }
  return 1
}

/// `configure --json`'s answer when it did nothing.
private struct Refusal: Encodable {
  var error: String
}

/// The settings for people, a line each.
func describe(_ identity: ReceiverIdentity, _ settings: ReceiverSettings) -> String {
  var lines = ["receiver         \(identity)"]
  lines += describe(settings).map { "\($0.0.padding(to: 17))\($0.1)" }
  return lines.joined(separator: "\n") + "\n"
}

func describe(_ settings: ReceiverSettings) -> [(String, String)] { settings.described.map { ($0.name, $0.value) } }

func describe(_ report: ReceiverSetup.Report) -> String {
  var lines: [String] = []
  if let port = report.port { lines.append("port             \(port) (the one this machine talks through)") }
  let before = Dictionary(describe(report.before), uniquingKeysWith: { $1 })
  for (name, value) in describe(report.after) {
    lines.append("\(name.padding(to: 17))\(before[name] ?? "?") → \(value)")
  }
  for refusal in report.refused { lines.append("refused          \(refusal)") }
  lines.append("output before    \(report.measuredBefore.summary)")
  if let after = report.measuredAfter { lines.append("output after     \(after.summary)") }
  let seconds = Double(report.duration.components.seconds) + Double(report.duration.components.attoseconds) / 1e18
  lines.append(
    report.dryRun
      ? "dry run: nothing was written."
      : (report.saved
        ? "kept and saved"
        : report.saveRefusal == nil
          ? (report.after.integrity == nil ? "kept in RAM (until power off; --save keeps it)" : "kept in RAM (until power off)")
          : "kept while the receiver's backup battery lasts (it has no save)")
        + ", in \(format(seconds, 1)) s.")
  return lines.joined(separator: "\n") + "\n"
}

/// `configure --show --json`.
struct SettingsJSON: Encodable {
  struct Receiver: Encodable {
    var kind: String
    var model: String
    var firmware: String
    var protocolVersion: Double?
  }
  struct Pulse: Encodable {
    var period: Int
    var width: Int
  }
  var receiver: Receiver?
  var rate: Int?
  var baudRate: Int?
  var sentences: [String]?
  var constellations: [String]?
  var dynamicModel: String?
  var outputProtocol: String?
  var timePulse: Pulse?
  var integrity: Bool?

  init(_ identity: ReceiverIdentity?, _ settings: ReceiverSettings) {
    receiver = identity.map {
      Receiver(kind: $0.kind.rawValue, model: $0.model, firmware: $0.firmware, protocolVersion: $0.protocolVersion)
    }
    rate = settings.rate
    baudRate = settings.baudRate
    sentences = settings.sentences?.sorted().map(\.rawValue)
    constellations = settings.constellations?.sorted().map(\.rawValue)
    dynamicModel = settings.dynamicModel?.rawValue
    outputProtocol = settings.outputProtocol?.rawValue
    timePulse = settings.timePulse.map { Pulse(period: $0.period, width: $0.width) }
    integrity = settings.integrity
  }
}

/// `configure … --json`: what changed, and what was measured.
struct ReportJSON: Encodable {
  struct Measured: Encodable {
    var rate: Double?
    var sentences: [String]
    /// The satellite systems its GSV listed.
    var systems: [String]
    var ubxFrames: Int
  }
  var receiver: String
  /// The receiver's port that was changed (`USB`, `UART1`), when it said.
  var port: String?
  var before: SettingsJSON
  var after: SettingsJSON
  var measuredBefore: Measured
  var measuredAfter: Measured?
  var saved: Bool
  var dryRun: Bool
  var seconds: Double
  /// What of the change the receiver refused, the rest made without it.
  var refused: [String]?

  init(_ report: ReceiverSetup.Report) {
    receiver = report.receiver.model
    port = report.port
    before = SettingsJSON(nil, report.before)
    after = SettingsJSON(nil, report.after)
    func measured(_ output: OutputMeasurement) -> Measured {
      Measured(
        rate: output.rate, sentences: output.sentences.sorted().map(\.rawValue), systems: output.systems.sorted().map(\.rawValue),
        ubxFrames: output.ubxFrames)
    }
    measuredBefore = measured(report.measuredBefore)
    measuredAfter = report.measuredAfter.map(measured)
    saved = report.saved
    dryRun = report.dryRun
    refused = report.refused.isEmpty ? nil : report.refused
    seconds = Double(report.duration.components.seconds) + Double(report.duration.components.attoseconds) / 1e18
  }
}
