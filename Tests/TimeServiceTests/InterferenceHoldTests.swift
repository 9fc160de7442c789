import Framing
import NMEA
import Testing
import Transports

@testable import TimeService

/// A receiver that says it is spoofed, jammed or its antenna broken is held back from the
/// clock from the epoch it says so, and fed again only after its signals have been clean for
/// the settling time, counted by the machine's raw clock.
struct InterferenceHoldTests {
  /// What a u-blox says, as the frames it sends.
  static func navigationStatus(spoofing: Int) -> UBXFrame {
    var payload = [UInt8](repeating: 0, count: 16)
    payload[7] = UInt8(spoofing << 3)
    return UBXFrame(messageClass: 0x01, id: 0x03, payload: payload)
  }

  static func hardware(antenna: Int, jamming: Int = 1) -> UBXFrame {
    var payload = [UInt8](repeating: 0, count: 60)
    (payload[20], payload[21], payload[22]) = (UInt8(antenna), 1, UInt8(jamming << 2))
    return UBXFrame(messageClass: 0x0A, id: 0x09, payload: payload)
  }

  /// A receiver's events, one epoch a second, the time samples and notices they give.
  struct Receiver {
    var judge = TimeJudge()
    var integrity = SignalIntegrity()
    var second = 100
    var fed: [Int] = []
    var said: [TimeNotice] = []

    /// The receiver says `frame`, before its next epoch.
    mutating func says(_ frame: UBXFrame) {
      let changed = integrity.take(frame)
      #expect(changed)
      take(.integrity(integrity))
    }

    /// How far the receiver's time is from the machine's (a jump), seconds.
    var shift = 0

    /// `count` epochs, their fixes valid, or lost, or with few satellites.
    mutating func epochs(_ count: Int, position: Bool = true, satellites: Int = 9) {
      for _ in 0..<count {
        var fix = TimeSamplerTests.fix(second + shift, valid: position)
        let arrived = TimeSamplerTests.fix(second)
        (fix.arrival, fix.arrivalUptime) = (arrived.arrival, arrived.arrivalUptime)
        fix.satellitesUsed = satellites
        take(.fix(fix))
        second += 1
      }
    }

    private mutating func take(_ event: ReceiverEvent) {
      for event in judge.take(event) {
        switch event {
        case .sample(let sample): fed.append(Int(sample.reference.nanosecondsSince1970 / 1_000_000_000 % 86_400) - shift)
        case .notice(let notice): said.append(notice)
        }
      }
    }
  }

  @Test func spoofingIndicatedStopsTheFeedFromItsEpochAndIsSaidOnce() {
    var receiver = Receiver()
    receiver.epochs(10)
    #expect(receiver.fed.last == 109)
    receiver.says(Self.navigationStatus(spoofing: 2))
    receiver.epochs(5)
    receiver.says(Self.navigationStatus(spoofing: 3))
    receiver.epochs(5)
    #expect(receiver.fed.last == 109, "fed while spoofed: \(receiver.fed)")
    #expect(
      receiver.said == [.interference(.spoofing(.indicated, .navigationStatus)), .interference(.spoofing(.affirmed, .navigationStatus))])
    #expect(
      receiver.said.first?.description.hasPrefix("the receiver says its signals are spoofed (spoofing indicated, by NAV-STATUS)") == true)
  }

  @Test func theFeedResumesOnlyAfterTheSignalsHaveBeenCleanForTheSettlingTime() {
    var receiver = Receiver()
    receiver.epochs(5)
    receiver.says(Self.navigationStatus(spoofing: 2))
    receiver.epochs(3)
    receiver.says(Self.navigationStatus(spoofing: 1))
    // Clean from second 108: a minute later by the raw clock, and not a second before.
    let seconds = Int(InterferenceHold.settlingTime.components.seconds)
    receiver.epochs(seconds)
    #expect(receiver.fed.last == 104)
    receiver.epochs(2)
    #expect(receiver.said.last == .resumed(.signalsClean))
    #expect(receiver.fed.suffix(2) == [108 + seconds, 109 + seconds], "\(receiver.fed)")
  }

  @Test func anAlarmWhileSettlingStartsTheWaitAgain() {
    var receiver = Receiver()
    receiver.epochs(5)
    receiver.says(Self.hardware(antenna: 2, jamming: 3))
    receiver.epochs(2)
    receiver.says(Self.hardware(antenna: 2, jamming: 1))
    receiver.epochs(30)
    receiver.says(Self.hardware(antenna: 2, jamming: 3))
    receiver.epochs(1)
    receiver.says(Self.hardware(antenna: 2, jamming: 1))
    // Clean again from the epoch after the second alarm's: held for a whole minute from there.
    receiver.epochs(60)
    #expect(receiver.fed.last == 104)
    receiver.epochs(1)
    #expect(receiver.fed.last == receiver.second - 1)
    #expect(receiver.said == [.interference(.jamming(.hardwareMonitor)), .resumed(.signalsClean)], "said again only once it changed")
  }

  @Test func jammingThatOnlyWarnsHoldsNothing() {
    var receiver = Receiver()
    receiver.says(Self.hardware(antenna: 2, jamming: 2))
    receiver.epochs(10)
    #expect(receiver.said.isEmpty && receiver.fed.count == 10 - TimeSampler.consistentEpochsNeeded)
  }

  @Test func aShortAntennaHoldsAtOnce() {
    var receiver = Receiver()
    receiver.epochs(5)
    receiver.says(Self.hardware(antenna: 3))
    receiver.epochs(5)
    #expect(receiver.fed.last == 104)
    #expect(receiver.said == [.interference(.antennaShort(.hardwareMonitor))])
  }

  /// A board with a passive antenna says "open" for ever with a good fix: that holds nothing.
  /// Open with the fix lost, or down to three satellites, does, until the fix is good again
  /// for the settling time (the antenna may well still say "open").
  @Test func anOpenAntennaHoldsOnlyWhileTheFixDegrades() {
    var receiver = Receiver()
    receiver.says(Self.hardware(antenna: 4))
    receiver.epochs(10)
    #expect(receiver.said.isEmpty && receiver.fed.last == 109)
    receiver.epochs(2, satellites: 3)
    receiver.epochs(2, position: false)
    receiver.epochs(10)
    #expect(receiver.fed.last == 109)
    #expect(receiver.said == [.interference(.antennaOpen(.hardwareMonitor))])
    receiver.epochs(60)
    #expect(receiver.said.last == .resumed(.signalsClean))
    #expect(receiver.fed.last == receiver.second - 1)
  }

  /// Clean signals do not say "fed again" while the time itself is held (it jumped an hour):
  /// nothing is fed, and no resume is said, until the time is trusted again.
  @Test func cleanSignalsSayNothingWhileTheTimeItselfIsHeld() {
    var receiver = Receiver()
    receiver.epochs(5)
    receiver.says(Self.navigationStatus(spoofing: 2))
    receiver.shift = 3600
    receiver.epochs(3)
    receiver.says(Self.navigationStatus(spoofing: 1))
    receiver.epochs(70)
    #expect(receiver.fed.last == 104, "fed while held: \(receiver.fed.suffix(3))")
    #expect(!receiver.said.contains(.resumed(.signalsClean)), "\(receiver.said)")
    #expect(receiver.said.contains { if case .jumped = $0 { true } else { false } }, "\(receiver.said)")
  }

  /// The pulses stop with the serial time: none is labelled with a second heard before the doubt.
  @Test func aHeldReceiverLabelsNoPulseWithItsLastTime() {
    var labeller = PulseLabeller()
    let sample = TimeSample(
      kind: .serial, reference: UTCTimestamp(nanosecondsSince1970: 1_000_000_000_000_000_000),
      system: UTCTimestamp(nanosecondsSince1970: 1_000_000_000_150_000_000))
    labeller.take(sample)
    _ = labeller.label(edge: UTCTimestamp(nanosecondsSince1970: 1_000_000_000_000_000_000 - 10_000_000))
    labeller.forgetTime()
    #expect(labeller.label(edge: UTCTimestamp(nanosecondsSince1970: 1_000_000_000_990_000_000)) == nil)
  }
}
