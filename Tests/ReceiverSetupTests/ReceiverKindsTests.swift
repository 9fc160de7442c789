import Foundation
import Framing
import NMEA
import NMEASimulation
import Plumbing
import ReceiverSetup
import TestHelpers
import Testing
import Transports

/// Each kind of simulated receiver (u-blox generation 9 and M8, MediaTek, SiRF) set up end to
/// end on a pty with its own commands: the rate, the baud rate, sentences and satellite systems
/// changed and proven by what it then sends, what it cannot take refused before anything is
/// written, and every failure rolled back to the settings it started with.
@Suite(.timeLimit(.minutes(4)))
struct ReceiverKindsTests {
  static var fast: ReceiverSetup.Timing {
    var timing = ReceiverSetup.Timing()
    timing.answer = .milliseconds(500)
    timing.output = .seconds(6)
    return timing
  }

  static let kinds: [ReceiverProfile] = [.ublox, .ublox8, .mtk, .sirf]
  static let expectedKind: [String: ReceiverIdentity.Kind] = ["ublox": .ublox9, "ublox8": .ublox8, "mtk": .mediatek, "sirf": .sirf]

  /// What the simulated receiver does now: its rate, sentences and systems, by its own state.
  static func state(_ responder: any ReceiverResponder) -> (rate: Double, sentences: Set<String>, systems: Set<String>?) {
    switch responder {
    case let r as UBloxResponder: (r.rate, r.sentences, r.systems)
    case let r as UBlox8Responder: (r.rate, r.sentences, r.systems)
    case let r as MTKResponder: (r.rate, r.sentences, r.systems)
    case let r as SiRFResponder: (r.rate, r.sentences, nil)
    default: (0, [], nil)
    }
  }

  /// Whether the simulated receiver is as it started: every setting it has.
  static func isAsItStarted(_ responder: any ReceiverResponder) -> Bool {
    switch responder {
    case let r as UBloxResponder: r.ram == r.initial
    case let r as UBlox8Responder: r.ram == r.initial
    case let r as MTKResponder:
      r.interval == r.initialInterval && r.sentenceRates == r.initialSentenceRates && r.searchMode == r.initialSearchMode
    case let r as SiRFResponder: r.intervals == r.initialIntervals
    default: false
    }
  }

  @Test(arguments: kinds)
  func eachKindIsKnownForWhatItIs(profile: ReceiverProfile) async throws {
    let bench = try await Bench.running(profile)
    let (identity, settings) = try await ReceiverSetup(bench.receiver, timing: Self.fast).currentSettings()
    await bench.stop()
    #expect(identity.kind == Self.expectedKind[profile.name], "\(identity)")
    #expect(settings.rate == 1, "\(settings)")
    #expect(settings.sentences?.contains(.gga) == true && settings.sentences?.contains(.rmc) == true, "\(settings)")
  }

  /// 1 Hz to 10 Hz, measured by the epochs' own times, and back to 1 Hz.
  @Test(arguments: [ReceiverProfile.ublox, .ublox8, .mtk])
  func theRateGoesToTenHertzAndBack(profile: ReceiverProfile) async throws {
    let bench = try await Bench.running(profile, baud: 115_200)
    let setup = ReceiverSetup(bench.receiver, timing: Self.fast)
    // Ten epochs a second of every sentence need more than 9600 baud; GPS and GLONASS only for an M8.
    let up = try await setup.configure(ReceiverSettings(rate: 10, sentences: [.gga, .rmc]))
    let atUp = Self.state(bench.configuration)
    let down = try await setup.configure(ReceiverSettings(rate: 1))
    let atDown = Self.state(bench.configuration)
    await bench.stop()
    #expect(up.before.rate == 1 && atUp.rate == 10 && atDown.rate == 1)
    #expect(up.measuredAfter?.rate.map { abs($0 - 10) < 1 } == true, "\(String(describing: up.measuredAfter))")
    #expect(down.measuredAfter?.rate.map { abs($0 - 1) < 0.1 } == true, "\(String(describing: down.measuredAfter))")
    #expect(up.measuredAfter?.sentences == [.gga, .rmc])
    // Only a receiver that can be told to save is told that --save keeps it.
    #expect((up.saveRefusal != nil) == (profile == .mtk), "\(String(describing: up.saveRefusal))")
  }

  @Test func aSiRFIsToldItCannotGoFasterThanOneHertz() async throws {
    let bench = try await Bench.running(.sirf)
    await #expect(
      throws: SetupError.cannotTake("A SiRF in NMEA mode sends its sentences at whole seconds (PSRF103): 1 Hz is its only rate.")
    ) {
      try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(rate: 10))
    }
    let configuration = bench.configuration
    await bench.stop()
    #expect(Self.isAsItStarted(configuration))
  }

  /// An M8 computes 10 fixes a second from two systems at most: 18 Hz with GPS and GLONASS is
  /// refused, with the reason, before anything is written.
  @Test func anM8IsToldWhatRateItsSystemsAllow() async throws {
    let bench = try await Bench.running(.ublox8, baud: 115_200)
    let thrown = await failure {
      try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(rate: 18, sentences: [.rmc]))
    }
    let configuration = bench.configuration
    await bench.stop()
    guard case .cannotTake(let reason) = thrown else {
      Issue.record("expected a refusal, got \(String(describing: thrown))")
      return
    }
    #expect(reason.hasPrefix("An M8 computes at most 10 fixes a second from 2 satellite systems (gps, glonass)"), "\(reason)")
    #expect(Self.isAsItStarted(configuration))
  }

  /// A u-blox read on its own USB port (the commonest setup: /dev/ttyACM0) is set there, where
  /// its output changes: its UART1's settings change nothing this machine sees (a change made
  /// there was acknowledged, did nothing, and was rolled back). The report names the port; the
  /// same receiver read on UART1 is set on UART1.
  @Test(arguments: [ReceiverProfile.ublox, .ublox8], [true, false])
  func aUBloxIsSetOnThePortItIsReadThrough(profile: ReceiverProfile, onUSB: Bool) async throws {
    let bench = try await Bench.running(profile, baud: 115_200, onUSB: onUSB)
    let setup = ReceiverSetup(bench.receiver, timing: Self.fast)
    let report = try await setup.configure(ReceiverSettings(rate: 5, sentences: [.gga, .rmc]))
    let state = Self.state(bench.configuration)
    await bench.stop()
    #expect(report.port == (onUSB ? "USB" : "UART1"))
    #expect(state.rate == 5 && report.measuredAfter?.rate.map { abs($0 - 5) < 0.5 } == true, "\(String(describing: report.measuredAfter))")
    #expect(report.measuredAfter?.sentences == [.gga, .rmc], "\(String(describing: report.measuredAfter))")
    #expect(!report.saved)
  }

  /// The speed a baud switch is said to start from is the line's, as the host opened it, not
  /// the receiver's record of its port (it said "switching from 38400" on a line at 9600).
  @Test func aBaudSwitchStartsFromTheSpeedTheLineRunsAt() async throws {
    let pty = try PseudoTerminal()
    let simulation = Simulation(route: Route.demoDrive.lasting(600).startingNow, profile: .ublox, rate: 1)
    let simulated = LiveReceiver(simulation: simulation, port: pty.master, latency: 20, responder: UBloxResponder(baud: 38_400))
    let receiver = Receiver(SerialSource(path: pty.slavePath, baudRate: .fixed(9600)))
    let playing = Task(executorPreference: DedicatedExecutor.own()) { await simulated.run() }
    let running = Task(executorPreference: DedicatedExecutor.own()) { await receiver.run() }
    #expect(await pty.waitUntilHeld())
    let said = Locked<[String]>([])
    _ = try? await ReceiverSetup(receiver, timing: Self.fast).configure(ReceiverSettings(baudRate: 115_200)) { message in
      said.withLock { $0.append(message) }
    }
    running.cancel()
    playing.cancel()
    await running.value
    await playing.value
    pty.unplug()
    #expect(said.withLock { $0 }.contains("switching from 9600 to 115200 baud"), "\(said.withLock { $0 })")
  }

  /// A USB port has no baud rate: asked for one, the change is refused before anything is
  /// written, and says why.
  @Test(arguments: [ReceiverProfile.ublox, .ublox8])
  func aBaudRateOnTheUSBPortIsRefused(profile: ReceiverProfile) async throws {
    let bench = try await Bench.running(profile, baud: 115_200, onUSB: true)
    let failure = await failure { try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(baudRate: 9600)) }
    await bench.stop()
    #expect("\(String(describing: failure))".contains("on its USB port, which has no baud rate"), "\(String(describing: failure))")
  }

  /// 9600 baud to 115200 and back, each kind told with its own command, the port following.
  @Test(arguments: kinds)
  func theBaudRateGoesUpAndBack(profile: ReceiverProfile) async throws {
    let bench = try await Bench.running(profile, baud: 9600)
    let setup = ReceiverSetup(bench.receiver, timing: Self.fast)
    // What 9600 baud carries coming back: GGA and RMC.
    let up = try await setup.configure(ReceiverSettings(baudRate: 115_200, sentences: [.gga, .rmc]))
    let speedUp = (bench.configuration.lineSpeed, bench.pty.inputSpeed)
    let down = try await setup.configure(ReceiverSettings(baudRate: 9600))
    let speedDown = (bench.configuration.lineSpeed, bench.pty.inputSpeed)
    await bench.stop()
    #expect(up.before.baudRate == 9600 && up.after.baudRate == 115_200)
    #expect(up.measuredAfter?.sentences == [.gga, .rmc], "\(String(describing: up.measuredAfter))")
    #expect(speedUp.0 == 115_200 && speedUp.1 == speed_t(B115200))
    #expect(down.before.baudRate == 115_200 && speedDown.0 == 9600 && speedDown.1 == speed_t(B9600))
    #expect((down.measuredAfter?.epochs ?? 0) >= 4, "\(String(describing: down.measuredAfter))")
  }

  /// A receiver that takes the command and keeps its old speed: nothing answers at the new one,
  /// the port goes back, and it is as it was, the other setting of the change undone too.
  @Test(arguments: kinds)
  func aBaudRateNotTakenFallsBack(profile: ReceiverProfile) async throws {
    let bench = try await Bench.running(profile, baud: 9600, fault: .ignoresBaudChange)
    let thrown = await failure {
      try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(baudRate: 115_200, sentences: [.gga, .rmc]))
    }
    let configuration = bench.configuration, speed = bench.pty.inputSpeed
    await bench.stop()
    guard case .rolledBack(.notInEffect(let reason), let restored) = thrown else {
      Issue.record("expected a rollback, got \(String(describing: thrown))")
      return
    }
    #expect(reason == "it did not answer at 115200 baud, and still speaks at 9600; the port is back at 9600 baud")
    #expect(restored)
    #expect(speed == speed_t(B9600))
    #expect(Self.isAsItStarted(configuration))
  }

  @Test(arguments: kinds)
  func aSentenceSetIsWhatItSendsAfter(profile: ReceiverProfile) async throws {
    let bench = try await Bench.running(profile)
    let report = try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(sentences: [.gga, .rmc, .gsa]))
    let state = Self.state(bench.configuration)
    await bench.stop()
    #expect(report.measuredAfter?.sentences == [.gga, .rmc, .gsa], "\(String(describing: report.measuredAfter))")
    #expect(state.sentences == ["GGA", "RMC", "GSA"])
  }

  /// GLONASS off: its satellites leave GSV, and the receiver says it tracks GPS alone.
  @Test(arguments: [ReceiverProfile.ublox, .ublox8, .mtk])
  func satelliteSystemsAreWhatItTracksAfter(profile: ReceiverProfile) async throws {
    let bench = try await Bench.running(profile)
    let systems: Set<SatelliteSystem> = profile == .mtk ? [.gps] : [.gps, .qzss, .sbas]
    let report = try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(constellations: systems))
    let state = Self.state(bench.configuration)
    await bench.stop()
    #expect(report.before.constellations?.contains(.glonass) == true, "\(report.before)")
    #expect(report.measuredBefore.systems == [.gps, .glonass], "\(report.measuredBefore)")
    #expect(report.measuredAfter?.systems == [.gps], "\(String(describing: report.measuredAfter))")
    #expect(state.systems == Set(systems.map(\.rawValue)))
  }

  @Test func aSiRFIsToldItHasNoSystemsToChoose() async throws {
    let bench = try await Bench.running(.sirf)
    await #expect(throws: SetupError.cannotTake("A SiRF tracks GPS and SBAS only; it has no satellite systems to choose.")) {
      try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(constellations: [.gps]))
    }
    await bench.stop()
  }

  /// A fault at each step after the change was applied, for each kind: rolled back to the
  /// settings it started with, and the error says what went wrong.
  @Test(arguments: [
    (ReceiverProfile.ublox8, ResponderFault.refusesChanges), (.ublox8, .ignoresChanges), (.ublox8, .outputUnchanged),
    (.ublox8, .refusesSaving), (.mtk, .refusesChanges), (.mtk, .ignoresChanges), (.mtk, .outputUnchanged),
    (.sirf, .ignoresChanges), (.sirf, .outputUnchanged),
  ])
  func aFailureAtAnyStepPutsTheSettingsBack(profile: ReceiverProfile, fault: ResponderFault) async throws {
    let bench = try await Bench.running(profile, fault: fault)
    let thrown = await failure {
      try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(
        ReceiverSettings(sentences: [.gga, .rmc]), save: fault == .refusesSaving)
    }
    let configuration = bench.configuration
    await bench.stop()
    guard case .rolledBack(let cause, let restored) = thrown else {
      Issue.record("\(profile) \(fault): expected a rollback, got \(String(describing: thrown))")
      return
    }
    #expect(restored, "\(profile) \(fault): \(cause)")
    #expect(Self.isAsItStarted(configuration), "\(profile) \(fault)")
    if let m8 = configuration as? UBlox8Responder { #expect(m8.saved == nil) }
  }

  /// Every block a change touched comes back as it was, not as gpsbridge sums it up: the time
  /// pulse before lock, and the UBX navigation messages turned on for UBX output.
  @Test(arguments: [ReceiverProfile.ublox, .ublox8])
  func aRollbackPutsBackTheBlocksWhole(profile: ReceiverProfile) async throws {
    let bench = try await Bench.running(profile, baud: 115_200, fault: .outputUnchanged)
    let thrown = await failure {
      try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(
        ReceiverSettings(sentences: [.gga, .rmc, .gsv], outputProtocol: .ubx, timePulse: TimePulse(period: 500_000, width: 2000)))
    }
    let configuration = bench.configuration
    await bench.stop()
    guard case .rolledBack(_, let restored) = thrown else {
      Issue.record("\(profile): expected a rollback, got \(String(describing: thrown))")
      return
    }
    #expect(restored, "\(profile): \(String(describing: thrown))")
    #expect(Self.isAsItStarted(configuration), "\(profile)")
  }

  /// Gone silent once changed: it cannot be put back, and that is said, not hidden.
  @Test(arguments: [ReceiverProfile.ublox8, .mtk, .sirf])
  func aReceiverGoneSilentIsSaidToBeLeftChanged(profile: ReceiverProfile) async throws {
    let bench = try await Bench.running(profile, fault: .silentAfterChange)
    let thrown = await failure {
      try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(sentences: [.gga, .rmc]))
    }
    await bench.stop()
    guard case .rolledBack(_, let restored) = thrown else {
      Issue.record("\(profile): expected a rollback, got \(String(describing: thrown))")
      return
    }
    #expect(!restored, "\(profile)")
    #expect(thrown?.description.contains("could not be restored") == true)
  }

  /// Unplugged while its change is being checked: nothing can be put back, and that is said
  /// (with what to do), not hidden; the transaction ends instead of waiting for it.
  @Test(arguments: [ReceiverProfile.ublox, .ublox8, .mtk])
  func aReceiverUnpluggedMidTransactionIsSaidToBeLeftChanged(profile: ReceiverProfile) async throws {
    let bench = try await Bench.running(profile, fault: .outputUnchanged)
    // Answers may be slow on a loaded machine: only an answer that never comes may end this
    // transaction, and the unplug ends the wait for it at once. The simulator's unplug stops
    // its writing first and closes the line once Dispatch has let go of it, which a loaded
    // machine (a build beside the tests) delayed beyond a 6 s check: the receiver was then
    // silent, not gone. The check outlasts that; the unplug still ends it as the line closes.
    var timing = Self.fast
    timing.answer = .seconds(4)
    timing.output = .seconds(30)
    let setup = ReceiverSetup(bench.receiver, timing: timing)
    let applied = Locked(false)
    let transaction = Task {
      try await setup.configure(ReceiverSettings(sentences: [.gga, .rmc])) { message in
        if message.hasPrefix("before:") { applied.withLock { $0 = true } }
      }
    }
    // Unplugged the moment the change lands, from a thread of its own: a poll on the cooperative
    // pool was late by more than the check's 6 s on a loaded machine, and the check had ended.
    let unplugged = Locked(false)
    let ended = Locked(false)
    let unplugging = Thread {
      _ = eventuallyBlocking(timeout: .seconds(120), every: .milliseconds(1)) {
        ended.withLock { $0 } || (applied.withLock { $0 } && !Self.isAsItStarted(bench.configuration))
      }
      guard !ended.withLock({ $0 }) else { return }
      unplugged.withLock { $0 = true }
      bench.unplug()
    }
    unplugging.start()
    let outcome = await transaction.result
    ended.withLock { $0 = true }
    #expect(unplugged.withLock { $0 }, "\(profile): the transaction ended before its change landed: \(outcome)")
    await bench.stop()
    guard case .failure(let error as SetupError) = outcome, case .rolledBack(.deviceLost, let restored) = error else {
      Issue.record("\(profile): expected the receiver said lost, got \(outcome)")
      return
    }
    #expect(!restored, "\(profile): \(error)")
    #expect(error.description.hasPrefix("The receiver went away:"), "\(error)")
    #expect(error.description.contains("could not be restored"), "\(error)")
  }

  /// A model without the time pulse's keys refuses to read them: a time pulse is refused before
  /// anything is written (it could not be put back), and the rest still changes.
  @Test func aSettingTheModelLacksIsRefusedAndTheRestStillChanges() async throws {
    let pty = try PseudoTerminal()
    let lacking: Set<ConfigurationKey> = [ConfigurationKey(0x4005_0002), ConfigurationKey(0x4005_0004)]  // CFG-TP-PERIOD_TP1, LEN_TP1
    let simulated = LiveReceiver(
      simulation: Simulation(route: Route.demoDrive.lasting(600).startingNow, profile: .ublox), port: pty.master, latency: 20,
      responder: UBloxResponder(lacking: lacking))
    let receiver = Receiver(SerialSource(path: pty.slavePath, baudRate: .fixed(9600)))
    let playing = Task(executorPreference: DedicatedExecutor.own()) { await simulated.run() }
    let running = Task(executorPreference: DedicatedExecutor.own()) { await receiver.run() }
    #expect(await pty.waitUntilHeld())
    let setup = ReceiverSetup(receiver, timing: Self.fast)
    let thrown = await failure { try await setup.configure(ReceiverSettings(timePulse: TimePulse(period: 500_000, width: 1000))) }
    let rate = try await setup.configure(ReceiverSettings(rate: 2))
    let configuration = simulated.configuration as! UBloxResponder
    running.cancel()
    playing.cancel()
    await running.value
    await playing.value
    pty.unplug()
    #expect(
      thrown
        == .cannotTake(
          "The receiver does not say its time pulse (this model may not have it): gpsbridge changes only what it can put back as it was."))
    #expect(rate.after.rate == 2 && configuration.rate == 2)
  }

  /// An M8 that says it is a generation 9 refuses generation 9's CFG-VALGET: not the kind it
  /// claimed, and nothing is written.
  @Test func aReceiverThatIsNotTheKindItClaimsIsLeftAlone() async throws {
    let bench = try await Bench.running(.ublox8, fault: .claimsAnotherGeneration)
    let thrown = await failure { try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(rate: 2)) }
    let configuration = bench.configuration
    await bench.stop()
    guard case .unsupported(let reason) = thrown else {
      Issue.record("expected a refusal, got \(String(describing: thrown))")
      return
    }
    #expect(reason.contains("refuses CFG-VALGET") && reason.contains("not the kind it claims"), "\(reason)")
    #expect(Self.isAsItStarted(configuration))
  }

  /// An M8 switched to UBX only sends no NMEA, and gives its fixes from NAV-PVT all the same.
  @Test func anM8SwitchedToUBXOnlyStillGivesItsFixes() async throws {
    let bench = try await Bench.running(.ublox8, baud: 115_200)
    let report = try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(outputProtocol: .ubx))
    let fixes = Watched<[Fix]>([])
    let listener = bench.receiver.listen(wanting: .fixes) { event in
      if case .fix(let fix) = event { fixes.withLock { $0.append(fix) } }
    }
    #expect(await fixes.until { $0.count >= 4 })
    bench.receiver.stopListening(listener)
    let m8 = bench.configuration as! UBlox8Responder
    await bench.stop()
    let after = try #require(report.measuredAfter)
    #expect(after.sentences.isEmpty && after.ubxFrames > 0, "\(after)")
    #expect(!m8.sendsNMEA && m8.sendsUBX)
    let seen = fixes.withLock { $0 }
    #expect(seen.allSatisfy { $0.hasPosition && $0.timestamp != nil }, "\(seen)")
  }

  /// M8's save is CFG-CFG: what is in effect, kept in battery-backed RAM and flash.
  @Test func anM8SavesWithCFGCFG() async throws {
    let bench = try await Bench.running(.ublox8)
    let report = try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(
      ReceiverSettings(dynamicModel: .automotive, timePulse: TimePulse(period: 500_000, width: 50_000)), save: true)
    let m8 = bench.configuration as! UBlox8Responder
    await bench.stop()
    #expect(report.saved && report.before.dynamicModel == .portable)
    #expect(m8.saved == m8.ram && m8.ram.navigation[2] == 4)
  }

  @Test func aMediaTekIsNotSaved() async throws {
    let bench = try await Bench.running(.mtk)
    await #expect(
      throws: SetupError.cannotTake(
        "gpsbridge has no save for a MediaTek receiver: it keeps its settings while its backup battery lasts. Leave out --save.")
    ) {
      try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(sentences: [.gga, .rmc]), save: true)
    }
    let configuration = bench.configuration
    await bench.stop()
    #expect(Self.isAsItStarted(configuration))
  }
}

extension ReceiverProfile: CustomTestStringConvertible {
  public var testDescription: String { name }
}
