import Foundation
import Framing
import NMEASimulation
import Plumbing
import ReceiverSetup
import TestHelpers
import Testing
import Transports

/// `configure --integrity on|off` on simulated u-blox receivers: the interference monitor and
/// the messages that say what it and the spoofing detector see turned on in RAM (generation 9:
/// CFG-ITFM-ENABLE, MON-RF, NAV-STATUS, SEC-SIG; M8: CFG-ITFM, MON-HW, NAV-STATUS), the
/// receiver then saying its states; a part the firmware refuses said, the rest on; off again;
/// and a failure rolled back.
@Suite(.timeLimit(.minutes(3)))
struct IntegritySetupTests {
  /// A bench of `profile` answering as `responder`, and the integrity its receiver last said.
  static func rig(_ profile: ReceiverProfile, _ responder: any ReceiverResponder) async throws -> (Bench, Watched<SignalIntegrity?>) {
    let bench = try Bench(profile, baud: 38_400, responder: responder)
    let integrity = Watched<SignalIntegrity?>(nil)
    bench.receiver.listen(wanting: []) { event in
      if case .integrity(let state) = event { integrity.withLock { $0 = state } }
    }
    #expect(await bench.pty.waitUntilHeld())
    return (bench, integrity)
  }

  @Test(arguments: [ReceiverProfile.ublox, .ublox8])
  func integrityTurnsOnInRAMAndTheReceiverSaysItsStatesThenOff(profile: ReceiverProfile) async throws {
    let (rig, integrity) = try await Self.rig(profile, profile.responder(baud: 38_400)!)
    let setup = ReceiverSetup(rig.receiver, timing: ReceiverKindsTests.fast)
    let before = try await setup.currentSettings().1
    let on = try await setup.configure(ReceiverSettings(integrity: true))
    let sending = rig.simulated.configuration?.integrityMessages ?? []
    // What it says of its signals reaches the receiver's listeners.
    // (Generation 9's SEC-SIG speaks over its NAV-STATUS; an M8 has NAV-STATUS only.)
    let source: SignalIntegrity.Source = profile == .ublox ? .signalSecurity : .navigationStatus
    let heard = await integrity.until { $0?.spoofingSource == source }
    let said = integrity.withLock { $0 }
    let off = try await setup.configure(ReceiverSettings(integrity: false))
    let after = rig.simulated.configuration?.integrityMessages ?? []
    await rig.stop()
    #expect(before.integrity == false && on.before.integrity == false && on.after.integrity == true && on.refused.isEmpty)
    #expect(sending == (profile == .ublox ? [.radioMonitor, .navigationStatus, .signalSecurity] : [.hardwareMonitor, .navigationStatus]))
    #expect(heard, "\(String(describing: said))")
    #expect(said?.spoofing == SpoofingState.none && said?.jamming == .ok && said?.antenna == .ok)
    #expect(off.after.integrity == false && after.isEmpty)
  }

  /// A firmware that refuses the interference monitor (some refuse CFG-ITFM on every boot), or
  /// lacks SEC-SIG: said, and the rest turned on.
  @Test(arguments: ["refuses CFG-ITFM", "lacks SEC-SIG", "M8 refuses CFG-ITFM"])
  func aPartTheFirmwareRefusesIsSaidAndTheRestTurnedOn(firmware: String) async throws {
    let monitor = ConfigurationKey(0x1041_000D)
    let secSig: Set<ConfigurationKey> = [ConfigurationKey(0x2091_0635), ConfigurationKey(0x2091_0637)]
    let (profile, responder): (ReceiverProfile, any ReceiverResponder) =
      switch firmware {
      case "refuses CFG-ITFM": (.ublox, UBloxResponder(refusing: [monitor]))
      case "lacks SEC-SIG": (.ublox, UBloxResponder(lacking: secSig))
      default: (.ublox8, UBlox8Responder(baud: 38_400, refusesInterferenceMonitor: true))
      }
    let (rig, _) = try await Self.rig(profile, responder)
    let report = try await ReceiverSetup(rig.receiver, timing: ReceiverKindsTests.fast).configure(ReceiverSettings(integrity: true))
    let sending = rig.simulated.configuration?.integrityMessages ?? []
    await rig.stop()
    let refused = report.refused.joined(separator: "; ")
    switch firmware {
    case "refuses CFG-ITFM":
      #expect(report.refused.count == 1 && refused.hasPrefix("the receiver refused CFG-ITFM-ENABLE"), "\(refused)")
      #expect(sending == [.radioMonitor, .navigationStatus, .signalSecurity])
    case "lacks SEC-SIG":
      #expect(report.refused.count == 1 && refused.hasPrefix("the receiver refused CFG-MSGOUT-UBX_SEC_SIG_UART1"), "\(refused)")
      #expect(sending == [.radioMonitor, .navigationStatus])
    default:
      #expect(report.refused.count == 1 && refused.hasPrefix("the receiver refused CFG-ITFM "), "\(refused)")
      #expect(sending == [.hardwareMonitor, .navigationStatus])
    }
    #expect(report.after.integrity == true && refused.hasSuffix("left as it was, the rest set"))
  }

  /// A change that fails after the integrity settings were made (the receiver's output never
  /// shows the rate asked) is rolled back whole, the refused key and all.
  @Test func aFailedChangeTakesTheIntegritySettingsBackToo() async throws {
    let monitor = ConfigurationKey(0x1041_000D)
    let (rig, _) = try await Self.rig(.ublox, UBloxResponder(fault: .outputUnchanged, refusing: [monitor]))
    let thrown = await failure {
      try await ReceiverSetup(rig.receiver, timing: ReceiverKindsTests.fast).configure(ReceiverSettings(rate: 2, integrity: true))
    }
    let responder = rig.simulated.configuration as! UBloxResponder
    await rig.stop()
    guard case .rolledBack(_, let restored) = thrown else {
      Issue.record("not rolled back: \(String(describing: thrown))")
      return
    }
    #expect(restored && responder.ram == responder.initial)
  }

  @Test func integrityIsSetInRAMOnly() async throws {
    let (rig, _) = try await Self.rig(.ublox, UBloxResponder())
    let thrown = await failure {
      try await ReceiverSetup(rig.receiver, timing: ReceiverKindsTests.fast).configure(ReceiverSettings(integrity: true), save: true)
    }
    await rig.stop()
    #expect(
      thrown
        == .cannotTake(
          "The integrity settings are set in RAM only (a receiver that refuses one on every boot would refuse it saved too): leave out --save, or change them on their own."
        ))
  }
}
