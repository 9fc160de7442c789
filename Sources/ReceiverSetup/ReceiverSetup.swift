import Framing
import Plumbing
import Transports

/// Changes a receiver's settings as a transaction that rolls back: it identifies the
/// receiver, refuses what it or its link cannot take, snapshots the settings the change
/// touches, applies the change in RAM only, verifies it twice (read back, and by what the
/// receiver then sends), and keeps it, saving it to battery-backed RAM and flash only when
/// asked. On any failure after the change was applied, and on cancellation (Ctrl-C), the
/// snapshot is put back. gpsbridge writes to a receiver only through this, and only when asked.
///
/// The receiver's session must be open (a manager, a server or a listener of yours wants its
/// fixes): its bytes are read as ever, and the answers are picked out of them. The setup only
/// observes; it never keeps a device open by itself.
///
/// ```swift
/// let setup = ReceiverSetup(receiver)
/// let report = try await setup.configure(ReceiverSettings(rate: 5, sentences: [.gga, .rmc]))
/// print(report.after.summary)   // "5.0 Hz, GGA RMC"
/// ```
///
/// Supported: u-blox generation 9 and 10 (`CFG-VALSET`) and M8 (`CFG-PRT`, `CFG-RATE`,
/// `CFG-MSG`…) for every setting; MediaTek (`PMTK`) for rate, baud rate, sentences and
/// satellite systems; SiRF in NMEA mode (`PSRF`) for baud rate and sentences. What a kind
/// cannot take is refused with the reason before anything is written.
public final class ReceiverSetup: Sendable {
  /// How long to wait for things.
  public struct Timing: Hashable, Sendable {
    /// For an answer to one request; each request is tried ``attempts`` times.
    public var answer: Duration = .seconds(1)
    public var attempts = 3
    /// For the receiver's output to show a change: enough epochs at 1 Hz.
    public var output: Duration = .seconds(8)
    /// For the receiver to answer at a new baud rate before the old one is tried again.
    public var lineSpeed: Duration = .seconds(3)
    public init() {}
  }

  /// What a transaction did.
  public struct Report: Hashable, Sendable {
    public var receiver: ReceiverIdentity
    /// The settings the change touched, before and after.
    public var before: ReceiverSettings
    public var after: ReceiverSettings
    /// What the receiver sent before and after.
    public var measuredBefore: OutputMeasurement
    public var measuredAfter: OutputMeasurement?
    /// Whether the change was saved (battery-backed RAM and flash).
    public var saved: Bool
    /// Why this receiver cannot be told to save, when it cannot (a MediaTek keeps what it is
    /// told while its backup battery lasts); `nil` when `--save` would save.
    public var saveRefusal: String? = nil
    /// The receiver's port whose settings were read and changed, when it has several and said
    /// which the host talks through ("USB", "UART1").
    public var port: String? = nil
    /// Whether it was only planned (`dryRun`): nothing was written.
    public var dryRun: Bool
    /// How long it took, on the clock given.
    public var duration: Duration
    /// What of the change the receiver refused, the rest made without it (a key a firmware
    /// refuses, a message a model lacks), for people.
    public var refused: [String] = []
  }

  let receiver: Receiver
  let timing: Timing
  private let sleep: @Sendable (Duration) async -> Void
  private let now: @Sendable () -> ContinuousClock.Instant

  /// A setup of `receiver`; `sleep` waits on the clock timeouts run on (tests give their own).
  public init(
    _ receiver: Receiver, timing: Timing = Timing(),
    sleep: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }
  ) {
    self.receiver = receiver
    self.timing = timing
    self.sleep = sleep
    self.now = { .now }
  }

  /// Asks the receiver what it is: `UBX-MON-VER`, then `PMTK605`, then its output.
  /// - Throws: ``SetupError/unsupported(_:)`` when it is none of the kinds gpsbridge knows.
  public func identify() async throws(SetupError) -> ReceiverIdentity {
    let link = link()
    let meter = OutputMeter(receiver)
    meter.start()
    return try await identify(link, meter).identity
  }

  /// The receiver's settings now, as far as it says them (or its output shows them).
  public func currentSettings() async throws(SetupError) -> (ReceiverIdentity, ReceiverSettings) {
    let link = link()
    let meter = OutputMeter(receiver)
    meter.start()
    let dialect = try await identify(link, meter)
    _ = await waitForOutput(meter, epochs: 3)
    return (dialect.identity, try await dialect.read(measured: meter.measurement))
  }

  private func link() -> SetupLink { SetupLink(receiver, timing: timing, sleep: sleep, now: now) }

  private func identify(_ link: SetupLink, _ meter: OutputMeter) async throws(SetupError) -> any ReceiverDialect {
    try await identifyReceiver(link) { [self] in
      _ = await waitForOutput(meter, epochs: 3)
      return meter.measurement
    }
  }

  /// Applies `change` as a transaction (see the type's description); with `dryRun`, only
  /// identifies, checks and reads, and says what would change.
  /// - Throws: a ``SetupError``; after the change was applied, a ``SetupError/rolledBack(cause:restored:)``.
  public func configure(
    _ change: ReceiverSettings, save: Bool = false, dryRun: Bool = false, progress: @Sendable (String) -> Void = { _ in }
  ) async throws(SetupError) -> Report {
    let started = now()
    let link = link()
    let meter = OutputMeter(receiver)
    meter.start()
    let dialect = try await identify(link, meter)
    progress("\(dialect.identity)")
    _ = await waitForOutput(meter, epochs: 3)
    let measuredBefore = meter.measurement

    // The snapshot: the settings as they are, of which the change touches some.
    let current = try await dialect.read(measured: measuredBefore)
    let before = current.restricted(to: change)
    if let refusal = dialect.refusal(of: change, current: current) { throw .cannotTake(refusal) }
    // A setting it does not say cannot be put back as it was: it is not changed.
    let unknown = change.described.map(\.name).filter { name in !current.described.contains { $0.name == name } }
    if !unknown.isEmpty {
      throw .cannotTake(
        "The receiver does not say its \(unknown.joined(separator: " or ")) (this model may not have it): gpsbridge changes only what it can put back as it was."
      )
    }
    try check(change, against: current)
    if save, let refusal = dialect.saveRefusal { throw .cannotTake(refusal) }
    if save, change.integrity != nil {
      throw .cannotTake(
        "The integrity settings are set in RAM only (a receiver that refuses one on every boot would refuse it saved too): leave out --save, or change them on their own."
      )
    }
    progress("before: \(measuredBefore.summary)")
    guard !dryRun else {
      return Report(
        receiver: dialect.identity, before: before, after: change, measuredBefore: measuredBefore, measuredAfter: nil, saved: false,
        saveRefusal: dialect.saveRefusal, port: dialect.port?.description, dryRun: true, duration: started.duration(to: now()))
    }

    // A baud rate is its own step, first: the rest is then set and checked at the new speed.
    let oldBaud = current.baudRate ?? link.lineSpeed
    let newBaud = change.baudRate.flatMap { $0 == oldBaud ? nil : $0 }
    var others = change
    others.baudRate = nil
    // What the rollback writes back: the receiver's own record of what the rest touches.
    let snapshot = try await dialect.snapshot(of: others, measured: measuredBefore)
    var saving = false
    do throws(SetupError) {
      if let newBaud, let oldBaud {
        // The speed the line runs at now, as the host opened it, whatever the receiver's own
        // record says of its port.
        progress("switching from \(link.lineSpeed ?? oldBaud) to \(newBaud) baud")
        try await switchBaud(to: newBaud, dialect, link, current: current)
        progress("it answers at \(newBaud) baud")
      }
      let refused = try await dialect.apply(others, over: current)
      for refusal in refused { progress(refusal) }
      // Checked twice: read back (where the receiver can be asked), then by the output itself.
      meter.start()
      if dialect.readsBack {
        // Only what the receiver says: what it shows in its output is checked there.
        let readBack = try await dialect.read(measured: OutputMeasurement.nothing).restricted(to: change)
        if let difference = Self.difference(readBack, from: current.merging(change).restricted(to: change).restricted(to: readBack)) {
          throw SetupError.notInEffect(difference)
        }
      }
      let measuredAfter = try await verifyOutput(change, meter, link)
      progress("after: \(measuredAfter.summary)")
      if save {
        saving = true
        try await dialect.save(current.merging(change), current: current)
        progress(dialect.savedWhere)
      }
      return Report(
        receiver: dialect.identity, before: before, after: change, measuredBefore: measuredBefore, measuredAfter: measuredAfter,
        saved: save, saveRefusal: dialect.saveRefusal, port: dialect.port?.description, dryRun: false,
        duration: started.duration(to: now()), refused: refused)
    } catch {
      let cause = Task.isCancelled ? SetupError.interrupted : error
      progress("restoring the settings as they were")
      // The rollback runs even when this task was cancelled: in a task of its own.
      let restored = await Task { [self] in
        await restore(
          snapshot, of: change, dialect, link, speaking: newBaud == nil ? nil : oldBaud, saved: saving, measuredBefore: measuredBefore)
      }.value
      throw .rolledBack(cause: cause, restored: restored)
    }
  }

  /// What of `wanted` `readBack` does not show, said for people; `nil` when it shows it all.
  static func difference(_ readBack: ReceiverSettings, from wanted: ReceiverSettings) -> String? {
    guard readBack != wanted else { return nil }
    let said = Dictionary(readBack.described, uniquingKeysWith: { $1 })
    let differing = wanted.described.filter { said[$0.0] != $0.1 }
    return differing.map { "its \($0.0) reads \(said[$0.0] ?? "nothing"), not \($0.1)" }.joined(separator: "; ")
  }

  /// The baud-rate handshake: the receiver told its new speed in RAM (its acknowledgement may
  /// come at either speed, or be lost, so it is not waited for), the port switched once that
  /// has gone out, and the receiver asked who it is at the new speed. When it does not answer
  /// there, the port goes back to the speed it was heard at, where it must answer again.
  private func switchBaud(
    to newBaud: Int, _ dialect: any ReceiverDialect, _ link: SetupLink, current: ReceiverSettings
  ) async throws(SetupError) {
    try await dialect.requestLineSpeed(newBaud, current: current)
    let heardAt = try await link.changeLineSpeed(to: newBaud)
    if await dialect.answers(within: timing.lineSpeed) { return }
    _ = try? await link.changeLineSpeed(to: heardAt)
    let back = await dialect.answers(within: timing.lineSpeed)
    throw .notInEffect(
      back
        ? "it did not answer at \(newBaud) baud, and still speaks at \(heardAt); the port is back at \(heardAt) baud"
        : "it answers at neither \(newBaud) nor \(heardAt) baud")
  }

  /// Writes `snapshot` back and checks it: read back where the receiver can be asked, and by
  /// its output (the sentences and systems it sent before). When the port's speed changed, the
  /// receiver is told its old speed last, and the port follows it to `speaking`. Whether it is
  /// as it was.
  private func restore(
    _ snapshot: Snapshot, of change: ReceiverSettings, _ dialect: any ReceiverDialect, _ link: SetupLink, speaking: Int?, saved: Bool,
    measuredBefore: OutputMeasurement
  ) async -> Bool {
    var restored = await dialect.restore(snapshot, saved: saved)
    if let speaking, let speed = link.lineSpeed, speed != speaking {
      _ = try? await dialect.requestLineSpeed(speaking, current: ReceiverSettings())
      _ = try? await link.changeLineSpeed(to: speaking)
      guard await dialect.answers(within: timing.lineSpeed) else { return false }
    }
    guard restored, change.sentences != nil || change.constellations != nil else { return restored }
    // And by the output, from an epoch that begins after the last command.
    let meter = OutputMeter(receiver)
    meter.start()
    guard await waitForOutput(meter, epochs: 1) else { return false }
    meter.start()
    guard await waitForOutput(meter, epochs: 4) else { return false }
    let after = meter.measurement
    restored = after.sentences == measuredBefore.sentences
    if change.constellations != nil, after.sentences.contains(.gsv), measuredBefore.sentences.contains(.gsv) {
      restored = restored && after.systems == measuredBefore.systems
    }
    return restored
  }

  /// What the receiver or its link cannot take, refused before anything is written.
  private func check(_ change: ReceiverSettings, against current: ReceiverSettings) throws(SetupError) {
    if let rate = change.rate, !ReceiverSettings.rates.contains(rate) {
      throw .cannotTake("A rate of \(rate) Hz is out of range: 1 to 25 Hz.")
    }
    if let baud = change.baudRate, !BaudRate.candidates.contains(baud) {
      throw .cannotTake(
        "\(baud) baud is not a rate a receiver's serial port takes: \(BaudRate.candidates.sorted().map(String.init).joined(separator: ", "))."
      )
    }
    let merged = current.merging(change)
    guard let rate = merged.rate, let baud = merged.baudRate, merged.outputProtocol != .ubx else { return }
    // SBAS and QZSS satellites are reported with GPS's: they add no GSA or GSV of their own.
    let systems = max(1, merged.constellations?.subtracting([.sbas, .qzss]).count ?? 1)
    let perEpoch = (merged.sentences ?? []).reduce(0) { $0 + $1.bytesPerEpoch(systems: systems) }
    let capacity = baud / 10
    guard perEpoch * rate <= capacity * 9 / 10 else {
      throw .cannotTake(
        "\(merged.sentences!.sorted().map(\.rawValue).joined(separator: ", ")) for \(systems) systems take about \(perEpoch) bytes an epoch, \(perEpoch * rate) bytes a second at \(rate) Hz; \(baud) baud carries \(capacity). Send fewer sentences, track fewer systems, or raise the baud rate first."
      )
    }
  }

  /// Waits until `epochs` epochs have come, or the output time is up; whether they came.
  private func waitForOutput(_ meter: OutputMeter, epochs: Int) async -> Bool {
    let deadline = now() + timing.output
    while meter.epochs < epochs, now() < deadline, !Task.isCancelled { await sleep(.milliseconds(50)) }
    return meter.epochs >= epochs
  }

  /// Watches the output until it shows `change` (its rate, its sentences, its protocol), or
  /// the output time is up.
  private func verifyOutput(_ change: ReceiverSettings, _ meter: OutputMeter, _ link: SetupLink) async throws(SetupError)
    -> OutputMeasurement
  {
    func shows(_ measured: OutputMeasurement) -> String? {
      if let rate = change.rate {
        guard let measuredRate = measured.rate else { return "fewer than 3 epochs came" }
        if abs(measuredRate - Double(rate)) > Double(rate) * 0.1 { return "it sends \(measured.summary), not \(rate) Hz" }
      }
      if change.outputProtocol != .ubx, let sentences = change.sentences, measured.sentences != sentences {
        return "it sends \(measured.summary), not \(sentences.sorted().map(\.rawValue).joined(separator: " "))"
      }
      if change.outputProtocol == .ubx, !measured.sentences.isEmpty { return "it still sends NMEA (\(measured.summary))" }
      if change.outputProtocol == .ubx || change.outputProtocol == .both, measured.ubxFrames == 0 { return "it sends no UBX navigation" }
      // A system turned off no longer shows in GSV (one turned on may have no satellite in view).
      if let systems = change.constellations, !measured.systems.isSubset(of: systems), measured.sentences.contains(.gsv) {
        return "it still lists \(measured.systems.subtracting(systems).sorted().map(\.rawValue).joined(separator: ", ")) satellites"
      }
      return nil
    }
    // From an epoch that begins after the change: the one under way may be half old.
    _ = await waitForOutput(meter, epochs: 1)
    meter.start()
    let deadline = now() + timing.output
    // The first epochs may still be the old settings': the last few are what counts.
    while now() < deadline, !Task.isCancelled {
      await sleep(.milliseconds(100))
      try link.checkPresent()
      if meter.epochs >= 4, shows(meter.measurement) == nil { return meter.measurement }
      if meter.epochs >= 8 { meter.start() }
    }
    if Task.isCancelled { throw .interrupted }
    try await link.confirmPresent()
    throw .notInEffect(shows(meter.measurement) ?? "its output did not settle")
  }
}
