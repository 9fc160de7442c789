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
/// The receiver must be running (a session is open: a manager, a server or a task runs it);
/// its bytes are read as ever, and the answers are picked out of them.
///
/// ```swift
/// let setup = ReceiverSetup(receiver)
/// let report = try await setup.configure(ReceiverSettings(rate: 5, sentences: [.gga, .rmc]))
/// print(report.after.summary)   // "5.0 Hz, GGA RMC"
/// ```
///
/// Supported today: u-blox generation 9 and 10 receivers (`CFG-VALSET`), for rate, sentences,
/// constellations, dynamic model, output protocol and time pulse.
public final class ReceiverSetup: Sendable {
  /// How long to wait for things.
  public struct Timing: Hashable, Sendable {
    /// For an answer to one request; each request is tried ``attempts`` times.
    public var answer: Duration = .seconds(1)
    public var attempts = 3
    /// For the receiver's output to show a change: enough epochs at 1 Hz.
    public var output: Duration = .seconds(6)
    /// For the receiver to answer at a new baud rate before the old one is tried again.
    public var lineSpeed: Duration = .seconds(3)
    public init() {}
  }

  /// What a transaction did.
  public struct Report: Hashable, Sendable {
    public var receiver: UBXVersion
    /// The settings the change touched, before and after.
    public var before: ReceiverSettings
    public var after: ReceiverSettings
    /// What the receiver sent before and after.
    public var measuredBefore: OutputMeasurement
    public var measuredAfter: OutputMeasurement?
    /// Whether the change was saved (battery-backed RAM and flash).
    public var saved: Bool
    /// Whether it was only planned (`dryRun`): nothing was written.
    public var dryRun: Bool
    /// How long it took, on the clock given.
    public var duration: Duration
  }

  let receiver: Receiver
  let timing: Timing
  /// The speed this setup last set the port to, while a baud change is under way.
  private let portSpeed = Locked<Int?>(nil)
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

  /// Asks the receiver what it is (`UBX-MON-VER`).
  /// - Throws: ``SetupError/noAnswer(request:)`` when nothing answers as a u-blox would.
  public func identify() async throws(SetupError) -> UBXVersion {
    let inbox = FrameInbox(receiver, sleep: sleep)
    return try await identify(inbox)
  }

  /// The receiver's settings now, as far as gpsbridge knows its keys.
  public func currentSettings() async throws(SetupError) -> (UBXVersion, ReceiverSettings) {
    let inbox = FrameInbox(receiver, sleep: sleep)
    let version = try await identify(inbox)
    try supported(version)
    let values = try await read(UBloxKey.all, inbox)
    return (version, UBloxKey.settings(from: values))
  }

  /// Applies `change` as a transaction (see the type's description); with `dryRun`, only
  /// identifies, checks and reads, and says what would change.
  /// - Throws: a ``SetupError``; after the change was applied, a ``SetupError/rolledBack(cause:restored:)``.
  public func configure(
    _ change: ReceiverSettings, save: Bool = false, dryRun: Bool = false, progress: @Sendable (String) -> Void = { _ in }
  ) async throws(SetupError) -> Report {
    let started = now()
    let inbox = FrameInbox(receiver, sleep: sleep)
    let meter = OutputMeter(receiver)
    meter.start()
    let version = try await identify(inbox)
    try supported(version)
    progress(
      "\(version.module ?? version.hardware) (u-blox generation \(version.generation ?? 0), protocol \(version.protocolVersion ?? 0))")

    // The snapshot: the values of every key the change touches, as they are.
    let wanted = UBloxKey.values(for: change)
    let snapshot = try await read(wanted.map(\.0), inbox)
    let before = UBloxKey.settings(from: snapshot).restricted(to: change)
    try check(change, against: UBloxKey.settings(from: try await read(UBloxKey.all, inbox)))
    _ = await waitForOutput(meter, epochs: 3)
    let measuredBefore = meter.measurement
    progress("before: \(measuredBefore.summary)")
    guard !dryRun else {
      return Report(
        receiver: version, before: before, after: change, measuredBefore: measuredBefore, measuredAfter: nil, saved: false,
        dryRun: true, duration: started.duration(to: now()))
    }

    // A baud rate is its own step, first: the rest is then set and checked at the new speed.
    let oldBaud = snapshot[UBloxKey.baudRate].map { Int($0) }
    let newBaud = change.baudRate.flatMap { $0 == oldBaud ? nil : $0 }
    let others = wanted.filter { $0.0 != UBloxKey.baudRate }
    do throws(SetupError) {
      if let newBaud, let oldBaud {
        progress("switching from \(oldBaud) to \(newBaud) baud")
        try await switchBaud(to: newBaud, inbox)
        progress("it answers at \(newBaud) baud")
      }
      try await set(others, layers: [.ram], inbox)
      // Checked twice: read back, then by the output itself.
      let readBack = try await read(wanted.map(\.0), inbox)
      for (key, value) in wanted where readBack[key] != value {
        throw SetupError.notInEffect("\(key) reads \(readBack[key].map(String.init) ?? "nothing"), not \(value)")
      }
      meter.start()
      let measuredAfter = try await verifyOutput(change, meter)
      progress("after: \(measuredAfter.summary)")
      if save {
        try await set(wanted, layers: [.batteryBacked, .flash], inbox)
        progress("saved to battery-backed RAM and flash")
      }
      return Report(
        receiver: version, before: before, after: change, measuredBefore: measuredBefore, measuredAfter: measuredAfter,
        saved: save, dryRun: false, duration: started.duration(to: now()))
    } catch {
      let cause = Task.isCancelled ? SetupError.interrupted : error
      progress("restoring the settings as they were")
      // The rollback runs even when this task was cancelled: in a task of its own.
      let restored = await Task { [self] in await restore(snapshot, wanted, lineSpeed: oldBaud) }.value
      throw .rolledBack(cause: cause, restored: restored)
    }
  }

  /// The baud-rate handshake: the receiver told its new speed in RAM (its acknowledgement may
  /// come at either speed, or be lost, so it is not waited for), the port switched once that
  /// has gone out, and the receiver asked who it is at the new speed. When it does not answer
  /// there, the port goes back to the speed it was heard at, where it must answer again.
  private func switchBaud(to newBaud: Int, _ inbox: FrameInbox) async throws(SetupError) {
    _ = try await send(.valueSet([(UBloxKey.baudRate, UInt64(newBaud))], layers: [.ram]))
    let heardAt: Int
    do {
      heardAt = try await receiver.changeLineSpeed(to: newBaud)
      portSpeed.withLock { $0 = newBaud }
    } catch {
      throw .deviceLost("its port could not be set to \(newBaud) baud")
    }
    if await answers(within: timing.lineSpeed, inbox) { return }
    if (try? await receiver.changeLineSpeed(to: heardAt)) != nil { portSpeed.withLock { $0 = heardAt } }
    let back = await answers(within: timing.lineSpeed, inbox)
    throw .notInEffect(
      back
        ? "it did not answer at \(newBaud) baud, and still speaks at \(heardAt); the port is back at \(heardAt) baud"
        : "it answers at neither \(newBaud) nor \(heardAt) baud")
  }

  /// Whether the receiver answers `UBX-MON-VER` within `time`.
  private func answers(within time: Duration, _ inbox: FrameInbox) async -> Bool {
    let deadline = now() + time
    while now() < deadline, !Task.isCancelled {
      inbox.clear()
      guard (try? await send(.versionPoll)) == true else {
        await sleep(.milliseconds(100))
        continue
      }
      if await inbox.next(matching: { UBXVersion($0) != nil }, within: .milliseconds(500)) != nil { return true }
    }
    return false
  }

  /// Puts `snapshot` back in RAM and checks it reads back; whether it did. When the baud rate
  /// is among them, the port follows the receiver back to `lineSpeed`.
  private func restore(
    _ snapshot: [ConfigurationKey: UInt64], _ wanted: [(ConfigurationKey, UInt64)], lineSpeed: Int?
  ) async -> Bool {
    let inbox = FrameInbox(receiver, sleep: sleep)
    var old = wanted.compactMap { key, _ in snapshot[key].map { (key, $0) } }
    if let lineSpeed, let speed = portSpeed.withLock({ $0 }), speed != lineSpeed {
      // The port and the receiver are at the new speed: the rest put back there, then the
      // receiver told its old speed, and the port follows it.
      old.removeAll { $0.0 == UBloxKey.baudRate }
      try? await set(old, layers: [.ram], inbox)
      _ = try? await send(.valueSet([(UBloxKey.baudRate, UInt64(lineSpeed))], layers: [.ram]))
      if (try? await receiver.changeLineSpeed(to: lineSpeed)) != nil { portSpeed.withLock { $0 = lineSpeed } }
      guard await answers(within: timing.lineSpeed, inbox) else { return false }
      old.append((UBloxKey.baudRate, UInt64(lineSpeed)))
    } else {
      // Refused or not (a receiver that refused the change refuses its undoing too), what
      // counts is what it reads back.
      do {
        try await set(old, layers: [.ram], inbox)
      } catch {
        if case .noAnswer = error { return false }
      }
    }
    guard let readBack = try? await read(old.map(\.0), inbox) else { return false }
    return old.allSatisfy { readBack[$0.0] == $0.1 }
  }

  private func identify(_ inbox: FrameInbox) async throws(SetupError) -> UBXVersion {
    let answer = try await exchange(.versionPoll, inbox, what: "UBX-MON-VER") { UBXVersion($0) != nil }
    return UBXVersion(answer)!
  }

  private func supported(_ version: UBXVersion) throws(SetupError) {
    guard let generation = version.generation, generation >= 9 else {
      throw .unsupported(
        "This is a u-blox \(version.module ?? version.hardware) (protocol \(version.protocolVersion.map { String($0) } ?? "unknown")): gpsbridge sets up generation 9 and 10 receivers (CFG-VALSET) so far."
      )
    }
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

  /// Reads `keys` from RAM.
  private func read(_ keys: [ConfigurationKey], _ inbox: FrameInbox) async throws(SetupError) -> [ConfigurationKey: UInt64] {
    var values: [ConfigurationKey: UInt64] = [:]
    for start in stride(from: 0, to: keys.count, by: 64) {
      let batch = Array(keys[start..<min(keys.count, start + 64)])
      let answer = try await exchange(.valueGet(batch, layer: .ram), inbox, what: "CFG-VALGET") {
        $0.configurationValues != nil || $0.acknowledgement.map { !$0.accepted && $0.messageClass == 0x06 && $0.id == 0x8B } == true
      }
      guard let answered = answer.configurationValues else {
        throw .cannotTake(
          "The receiver has no setting \(batch.map(\.description).joined(separator: ", ")) (it refused to read it): this model cannot take that change."
        )
      }
      values.merge(answered.values) { $1 }
    }
    return values
  }

  /// Sets `values` in `layers`, acknowledged.
  private func set(_ values: [(ConfigurationKey, UInt64)], layers: [ConfigurationLayer], _ inbox: FrameInbox) async throws(SetupError) {
    for start in stride(from: 0, to: values.count, by: 64) {
      let batch = Array(values[start..<min(values.count, start + 64)])
      let answer = try await exchange(.valueSet(batch, layers: layers), inbox, what: "CFG-VALSET") {
        $0.acknowledgement.map { $0.messageClass == 0x06 && $0.id == 0x8A } == true
      }
      guard answer.acknowledgement?.accepted == true else {
        throw .refused(request: "CFG-VALSET (\(batch.map { "\($0.0)=\($0.1)" }.joined(separator: ", ")))")
      }
    }
  }

  /// Sends `request` and waits for the frame `isAnswer` picks, trying ``Timing/attempts`` times.
  private func exchange(
    _ request: UBXFrame, _ inbox: FrameInbox, what: String, isAnswer: @escaping @Sendable (UBXFrame) -> Bool
  ) async throws(SetupError) -> UBXFrame {
    for _ in 0..<timing.attempts {
      guard !Task.isCancelled else { throw .interrupted }
      inbox.clear()
      guard try await send(request) else { continue }
      if let answer = await inbox.next(matching: isAnswer, within: timing.answer) { return answer }
    }
    throw Task.isCancelled ? .interrupted : .noAnswer(request: what)
  }

  /// Sends `request`; false when the receiver's queue is full for now. A port not open yet (the
  /// session is starting, autobaud is at work) is waited for, an answer's time at most.
  private func send(_ request: UBXFrame) async throws(SetupError) -> Bool {
    let deadline = now() + timing.answer
    while true {
      do {
        try receiver.send(request.bytes)
        return true
      } catch .full {
        await sleep(.milliseconds(20))
        return false
      } catch {
        guard now() < deadline, !Task.isCancelled else { throw .deviceLost("its port is not open") }
        await sleep(.milliseconds(20))
      }
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
  private func verifyOutput(_ change: ReceiverSettings, _ meter: OutputMeter) async throws(SetupError) -> OutputMeasurement {
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
      return nil
    }
    let deadline = now() + timing.output
    // The first epochs may still be the old settings': the last few are what counts.
    while now() < deadline, !Task.isCancelled {
      await sleep(.milliseconds(100))
      if meter.epochs >= 4, shows(meter.measurement) == nil { return meter.measurement }
      if meter.epochs >= 8 { meter.start() }
    }
    if Task.isCancelled { throw .interrupted }
    throw .notInEffect(shows(meter.measurement) ?? "its output did not settle")
  }
}
