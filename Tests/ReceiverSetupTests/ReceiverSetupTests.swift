import Foundation
import Framing
import NMEA
import NMEASimulation
import Plumbing
import ReceiverSetup
import TestHelpers
import Testing
import Transports

/// Changing a simulated u-blox generation 9 receiver's settings on a pty, end to end through
/// the receiver's own session: the change made, verified by what it then sends, kept only in
/// RAM unless saved, and put back whatever step fails.
@Suite(.timeLimit(.minutes(3)))
struct ReceiverSetupTests {
  /// A bench whose receiver has opened its port.
  static func bench(rate: Int = 4, baud: Int = 38_400, fault: UBloxResponder.Fault? = nil) async throws -> Bench {
    try await Bench.running(.ublox, rate: rate, baud: baud, fault: fault)
  }

  static var fast: ReceiverSetup.Timing {
    var timing = ReceiverSetup.Timing()
    timing.answer = .milliseconds(500)
    timing.output = .seconds(5)
    return timing
  }

  /// A receiver that does not answer is told what to check whatever its kind: never to be a
  /// u-blox (a MediaTek was told "Check that it is a u-blox receiver").
  @Test func noAnswerSaysWhatToCheckForEveryKind() {
    for request in ["PMTK220", "CFG-VALSET", "PSRF103"] {
      let said = SetupError.rolledBack(cause: .noAnswer(request: request), restored: true).description
      #expect(said.contains("did not answer \(request)") && !said.contains("u-blox"), "\(said)")
    }
  }

  @Test func itSaysWhatTheReceiverIsAndHowItIsSet() async throws {
    let bench = try await Self.bench()
    let (version, settings) = try await ReceiverSetup(bench.receiver, timing: Self.fast).currentSettings()
    await bench.stop()
    #expect(version.model == "ZED-F9P" && version.kind == .ublox9 && version.protocolVersion == 27.31)
    #expect(settings.rate == 4)
    #expect(settings.sentences == [.gga, .gll, .gsa, .gsv, .rmc, .vtg])
    #expect(settings.constellations == Set(SatelliteSystem.allCases))
    #expect(settings.outputProtocol == .nmea && settings.dynamicModel == .portable && settings.baudRate == 38_400)
  }

  @Test func aRateAndASentenceSetAreMadeAndSeenInTheOutputButNotSaved() async throws {
    let bench = try await Self.bench(rate: 2)
    let change = ReceiverSettings(rate: 5, sentences: [.gga, .rmc])
    let report = try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(change)
    let configuration = bench.ublox9
    await bench.stop()
    #expect(report.before.rate == 2 && report.before.sentences == [.gga, .gll, .gsa, .gsv, .rmc, .vtg])
    #expect(report.measuredBefore.rate.map { abs($0 - 2) < 0.2 } == true, "\(report.measuredBefore)")
    let after = try #require(report.measuredAfter)
    #expect(after.rate.map { abs($0 - 5) < 0.5 } == true, "\(after)")
    #expect(after.sentences == [.gga, .rmc], "\(after)")
    #expect(configuration.rate == 5 && configuration.sentences == ["GGA", "RMC"])
    #expect(configuration.flash.isEmpty && configuration.batteryBacked.isEmpty)
    #expect(!report.saved)
  }

  /// Switched to UBX only, the receiver sends no NMEA at all, and gives its fixes all the same,
  /// from NAV-PVT: the same route's positions.
  @Test func aReceiverSwitchedToUBXOnlyStillGivesItsFixes() async throws {
    let bench = try await Self.bench()
    let report = try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(outputProtocol: .ubx))
    let fixes = Watched<[Fix]>([])
    let listener = bench.receiver.listen(wanting: .fixes) { event in
      if case .fix(let fix) = event { fixes.withLock { $0.append(fix) } }
    }
    #expect(await fixes.until { $0.count >= 4 })
    bench.receiver.stopListening(listener)
    let configuration = bench.ublox9
    await bench.stop()
    let after = try #require(report.measuredAfter)
    #expect(after.sentences.isEmpty && after.ubxFrames > 0, "\(after)")
    #expect(!configuration.sendsNMEA && configuration.sendsUBX)
    let seen = fixes.withLock { $0 }
    #expect(
      seen.allSatisfy {
        $0.hasPosition && $0.timestamp != nil && ($0.satellitesUsed ?? 0) > 0 && $0.satellitesUsed == $0.satellites.filter(\.isUsed).count
      },
      "\(seen)")
    // Near the demo drive's start in Zürich.
    #expect(
      seen.allSatisfy { abs(($0.latitude ?? 0) - 47.3769) < 0.1 && abs(($0.longitude ?? 0) - 8.5417) < 0.1 },
      "\(seen.first.map(String.init(describing:)) ?? "")")
  }

  @Test func saveWritesTheChangeToFlashToo() async throws {
    let bench = try await Self.bench()
    let report = try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(
      ReceiverSettings(constellations: [.gps, .galileo], dynamicModel: .automotive), save: true)
    let configuration = bench.ublox9
    await bench.stop()
    #expect(report.saved)
    #expect(configuration.flash[ConfigurationKey(0x2011_0021)] == 4)  // CFG-NAVSPG-DYNMODEL: automotive
    #expect(configuration.flash[ConfigurationKey(0x1031_0025)] == 0)  // CFG-SIGNAL-GLO_ENA: off
    #expect(configuration.ram == configuration.flash.merging(configuration.ram) { _, ram in ram })
  }

  @Test func aDryRunWritesNothing() async throws {
    let bench = try await Self.bench()
    let report = try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(
      ReceiverSettings(rate: 10, sentences: [.gga, .rmc]), dryRun: true)
    let configuration = bench.ublox9
    await bench.stop()
    #expect(report.dryRun && report.measuredAfter == nil)
    #expect(configuration.ram == configuration.initial)
  }

  @Test func moreThanTheLinkCarriesIsRefusedBeforeAnythingIsWritten() async throws {
    let bench = try await Self.bench()
    let change = ReceiverSettings(rate: 25, sentences: Set(NMEASentenceType.allCases), constellations: Set(SatelliteSystem.allCases))
    await #expect(throws: SetupError.self) { try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(change) }
    let configuration = bench.ublox9
    await bench.stop()
    #expect(configuration.ram == configuration.initial)
  }

  /// A failure after the baud rate changed: the rest is put back at the new speed, then the
  /// receiver and the port go back to the old one together.
  @Test func aFailureAfterTheBaudRateChangedPutsTheOldSpeedBackToo() async throws {
    let bench = try await Self.bench(baud: 9600, fault: .outputUnchanged)
    let thrown = await failure {
      try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(rate: 2, baudRate: 57_600))
    }
    let configuration = bench.ublox9, speed = bench.pty.inputSpeed
    await bench.stop()
    guard case .rolledBack(_, let restored) = thrown else {
      Issue.record("expected a rollback, got \(String(describing: thrown))")
      return
    }
    #expect(restored)
    #expect(speed == speed_t(B9600) && configuration.lineSpeed == 9600)
    #expect(configuration.ram == configuration.initial)
  }

  /// A fault at each step after the change was applied: the settings are put back as they
  /// were, and the error says what went wrong.
  @Test(arguments: [UBloxResponder.Fault.refusesChanges, .ignoresChanges, .outputUnchanged, .refusesSaving])
  func aFailureAtAnyStepPutsTheSettingsBack(fault: UBloxResponder.Fault) async throws {
    let bench = try await Self.bench(fault: fault)
    let thrown = await failure {
      try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(rate: 2, sentences: [.gga]), save: true)
    }
    let configuration = bench.ublox9
    await bench.stop()
    guard case .rolledBack(let cause, let restored) = thrown else {
      Issue.record("\(fault): expected a rollback, got \(String(describing: thrown))")
      return
    }
    #expect(restored, "\(fault): \(cause)")
    #expect(configuration.ram == configuration.initial, "\(fault)")
    #expect(configuration.flash.isEmpty, "\(fault)")
  }

  /// A receiver that stops answering once changed cannot be put back: that is said, not hidden.
  @Test func aReceiverThatFallsSilentMidTransactionIsSaidToBeLeftChanged() async throws {
    let bench = try await Self.bench(fault: .silentAfterChange)
    let thrown = await failure { try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(rate: 2)) }
    await bench.stop()
    #expect(thrown == .rolledBack(cause: .noAnswer(request: "CFG-VALGET"), restored: false))
    #expect(thrown?.description.contains("could not be restored") == true)
  }

  /// Silent to u-blox's and MediaTek's questions, and sending NMEA 4.10 (no SiRF's): none of
  /// the kinds gpsbridge sets up, and nothing is written to it.
  @Test func aReceiverThatAnswersNothingIsRefused() async throws {
    let bench = try await Self.bench(fault: .silent)
    let thrown = await failure { try await ReceiverSetup(bench.receiver, timing: Self.fast).configure(ReceiverSettings(rate: 2)) }
    let configuration = bench.ublox9
    await bench.stop()
    guard case .unsupported(let reason) = thrown else {
      Issue.record("expected a refusal, got \(String(describing: thrown))")
      return
    }
    #expect(reason.contains("answered neither u-blox's UBX-MON-VER nor MediaTek's PMTK605, and its NMEA is not a SiRF's"), "\(reason)")
    #expect(configuration.ram == configuration.initial)
  }

  /// Ctrl-C after the change was applied: it is put back all the same.
  @Test func cancellingMidTransactionPutsTheSettingsBack() async throws {
    let bench = try await Self.bench(fault: .outputUnchanged)
    let setup = ReceiverSetup(bench.receiver, timing: Self.fast)
    let applied = Locked(false)
    let transaction = Task {
      try await setup.configure(ReceiverSettings(rate: 2)) { message in
        if message.hasPrefix("before:") { applied.withLock { $0 = true } }
      }
    }
    #expect(await eventually { applied.withLock { $0 } && bench.ublox9.ram != bench.ublox9.initial })
    transaction.cancel()
    let outcome = await transaction.result
    let configuration = bench.ublox9
    await bench.stop()
    guard case .failure(let error as SetupError) = outcome, case .rolledBack(.interrupted, true) = error else {
      Issue.record("expected an interrupted, restored change; got \(outcome)")
      return
    }
    #expect(configuration.ram == configuration.initial)
  }
}
