import NMEA
import Plumbing
import Testing
import TimeService

/// The rules that keep a wrong time from a clock: no date before this release, and no time
/// that steps or drifts against the machine's raw clock, until the receiver is back in line,
/// a synchronised system clock agrees with it, or (only where the system clock is not
/// synchronised) it has held for ten minutes.
struct TimeIntegrityTests {
  /// A receiver's epochs once a second: its own time (`receiver`, seconds since 1970), the
  /// system clock's when it arrived (`system`) and the boot clock's (`uptime`), each moving on
  /// by a second an epoch unless a test moves one alone.
  struct Receiver {
    var receiver: Int64
    var system: Int64
    var uptime: Int64 = 1000
    var delay = 0.150
    /// Nanoseconds the receiver's time runs ahead of the others' each epoch (a drifting
    /// receiver), and how far it has run so far.
    var drift: Int64 = 0
    var drifted: Int64 = 0

    /// The fix of the current epoch, then on to the next second.
    mutating func next() -> Fix {
      let reference = UTCTimestamp(nanosecondsSince1970: receiver * 1_000_000_000 + drifted)
      drifted += drift
      var fix = Fix(time: reference.time, timestamp: reference)
      fix.mode = .threeD
      fix.quality = .gps
      fix.latitude = 52
      fix.longitude = 13
      let delay = Int64(self.delay * 1e9)
      fix.arrival = UTCTimestamp(nanosecondsSince1970: system * 1_000_000_000 + delay)
      fix.arrivalUptime = .seconds(uptime) + .nanoseconds(delay)
      receiver += 1
      system += 1
      uptime += 1
      return fix
    }
  }

  /// 2026-12-01 00:00:00 UTC: after this release.
  static let december: Int64 = 1_796_083_200

  /// What the sampler gave for `count` epochs of `receiver`: samples fed, and what was said.
  static func run(_ sampler: inout TimeSampler, _ receiver: inout Receiver, _ count: Int) -> (fed: Int, said: [TimeNotice]) {
    var fed = 0
    var said: [TimeNotice] = []
    for _ in 0..<count {
      let outcome = sampler.take(receiver.next())
      if outcome.sample != nil { fed += 1 }
      if let notice = outcome.notice { said.append(notice) }
    }
    return (fed, said)
  }

  /// Samplers on a box whose system clock is synchronised, and on one whose is not.
  static let synchronised = TimeSampler(systemClockIsSynchronised: { true })
  static let unsynchronised = TimeSampler(systemClockIsSynchronised: { false })

  @Test func aJumpOfTenHoursStopsFeedingAndIsSaid() {
    var sampler = Self.synchronised
    var receiver = Receiver(receiver: Self.december, system: Self.december)
    #expect(Self.run(&sampler, &receiver, 10).fed == 10 - TimeSampler.consistentEpochsNeeded)
    receiver.receiver += 36_000
    let after = Self.run(&sampler, &receiver, 300)
    #expect(after.fed == 0)
    #expect(after.said == [.jumped(by: 36_000)])
    #expect(!sampler.isFeeding)
    #expect(after.said.first?.description.hasPrefix("the receiver's time jumped by +36000.000 s") == true)
  }

  @Test func onABoxWithoutSynchronisationAJumpedTimeThatHoldsTenMinutesIsFedAgain() {
    var sampler = Self.unsynchronised
    var receiver = Receiver(receiver: Self.december, system: Self.december)
    _ = Self.run(&sampler, &receiver, 10)
    receiver.receiver += 36_000
    let held = Self.run(&sampler, &receiver, 600)
    #expect(held.fed == 0)
    let trusted = Self.run(&sampler, &receiver, 5)
    #expect(trusted.said == [.resumed(.heldSteady)])
    #expect(trusted.fed == 5)
  }

  @Test func aSystemClockThatComesToAgreeResumesAtOnce() {
    // The receiver's time was an hour ahead (and fed: nothing told it from a system clock
    // not yet synchronised); the clock is synchronised from the network, and the receiver
    // corrects itself by an hour, to the time the system clock says.
    let isSynchronised = Locked(false)
    var sampler = TimeSampler(systemClockIsSynchronised: { isSynchronised.withLock { $0 } })
    var receiver = Receiver(receiver: Self.december, system: Self.december - 3600)
    _ = Self.run(&sampler, &receiver, 10)
    isSynchronised.withLock { $0 = true }
    receiver.receiver -= 3600
    let corrected = Self.run(&sampler, &receiver, 5)
    // The first epoch of the new time is withheld, the second says the step, the third agrees.
    #expect(corrected.said == [.jumped(by: -3600), .resumed(.systemClockAgrees)])
    #expect(corrected.fed == 3)
  }

  @Test func aGlitchOfOneEpochIsNotFedAndTheTimeAfterItIs() {
    var sampler = Self.unsynchronised
    var receiver = Receiver(receiver: Self.december, system: Self.december + 7200)
    _ = Self.run(&sampler, &receiver, 10)
    receiver.receiver += 86_400
    #expect(Self.run(&sampler, &receiver, 1).fed == 0)
    receiver.receiver -= 86_400
    // Back in line at once: one epoch withheld, nothing to say.
    let back = Self.run(&sampler, &receiver, 5)
    #expect(back.said == [])
    #expect(back.fed == 5)
  }

  @Test func aLateArrivalIsWithheldAndIsNoStep() {
    var sampler = Self.synchronised
    var receiver = Receiver(receiver: Self.december, system: Self.december)
    _ = Self.run(&sampler, &receiver, 10)
    // One burst read 120 ms late (a busy machine): by both clocks of this machine.
    receiver.delay = 0.270
    #expect(Self.run(&sampler, &receiver, 1).fed == 0)
    receiver.delay = 0.150
    let after = Self.run(&sampler, &receiver, 5)
    #expect(after.said == [] && after.fed == 5)
  }

  /// A machine getting busier, each burst read 5 ms later than the one before until they are
  /// 110 ms late, then quiet again: no step, and every epoch fed. A late arrival lowers an
  /// epoch's offset, never raises it, so the prompt arrival after the late ones is measured
  /// against the least delayed arrival fed lately, not against the latest (it was said to be a
  /// jump of +0.11 s, and a box without synchronisation then fed nothing for ten minutes).
  @Test func arrivalsGettingLaterAndThenPromptAgainAreNoStep() {
    var sampler = Self.unsynchronised
    var receiver = Receiver(receiver: Self.december, system: Self.december)
    _ = Self.run(&sampler, &receiver, 10)
    var said: [TimeNotice] = []
    var fed = 0
    for step in 1...22 {
      receiver.delay = 0.150 + 0.005 * Double(step)
      let outcome = Self.run(&sampler, &receiver, 1)
      said += outcome.said
      fed += outcome.fed
    }
    receiver.delay = 0.150
    let after = Self.run(&sampler, &receiver, 5)
    #expect(said + after.said == [])
    #expect(fed == 22 && after.fed == 5)
  }

  /// The leap-second confusion: the receiver's time steps by a second. A synchronised system
  /// clock is a second from it, so nothing vouches for the new time: never fed (it was fed
  /// after one epoch, as "within 1 s" of the system clock, and chrony followed it).
  @Test func aOneSecondStepIsNeverFedToASynchronisedClock() {
    var sampler = Self.synchronised
    var receiver = Receiver(receiver: Self.december, system: Self.december)
    _ = Self.run(&sampler, &receiver, 30)
    receiver.receiver += 1
    let after = Self.run(&sampler, &receiver, 900)
    #expect(after.fed == 0)
    #expect(after.said == [.jumped(by: 1), .stillDisagrees])
    #expect(!sampler.isFeeding)
    // It comes back: fed again.
    receiver.receiver -= 1
    #expect(Self.run(&sampler, &receiver, 5).said == [.resumed(.backInLine)])
  }

  /// A receiver whose time runs 10 ms a second fast (0 to 1.35 s in 150 s) is said as soon
  /// as the drift is measured, and no longer fed once it has drifted a tenth of a second.
  @Test func aReceiverDriftingTenMillisecondsASecondIsSaidThenStopped() {
    var sampler = Self.synchronised
    var receiver = Receiver(receiver: Self.december, system: Self.december)
    receiver.drift = 10_000_000
    var fedAfterStop = 0
    var said: [TimeNotice] = []
    for _ in 0..<150 {
      let outcome = sampler.take(receiver.next())
      if let notice = outcome.notice { said.append(notice) }
      if outcome.sample != nil, said.contains(where: { if case .drifted = $0 { true } else { false } }) { fedAfterStop += 1 }
    }
    #expect(said.count == 2, "\(said)")
    guard said.count == 2, case .drifting(let rate) = said[0], case .drifted(let seconds) = said[1] else { return }
    #expect(abs(rate - 0.01) < 0.002)
    #expect(seconds > 0.1 && seconds < 0.5, "\(seconds)")
    #expect(fedAfterStop == 0)
    #expect(said[0].description.hasPrefix("the receiver's time drifts by +10.0 ms a second"), "\(said[0])")
  }

  @Test func aSynchronisedClockThatDisagreesFromTheFirstEpochIsSaidAndNotFed() {
    var sampler = Self.synchronised
    // The receiver is a second ahead from its first epoch.
    var receiver = Receiver(receiver: Self.december + 1, system: Self.december)
    let run = Self.run(&sampler, &receiver, 100)
    #expect(run.fed == 0)
    #expect(run.said == [.disagreesWithSystemClock(by: -0.85)])
  }

  @Test func aJumpWhileHeldStartsTheTenMinutesAgain() {
    var sampler = Self.unsynchronised
    var receiver = Receiver(receiver: Self.december, system: Self.december)
    _ = Self.run(&sampler, &receiver, 10)
    receiver.receiver += 36_000
    _ = Self.run(&sampler, &receiver, 500)
    receiver.receiver += 60
    let again = Self.run(&sampler, &receiver, 500)
    #expect(again.said == [.jumped(by: 60)])
    #expect(again.fed == 0)
    #expect(Self.run(&sampler, &receiver, 200).said == [.resumed(.heldSteady)])
  }

  @Test func aBoxBootedWithAStaleClockIsFedAtOnce() {
    // A Raspberry Pi without a clock: the system says 1970 plus a little, the receiver the
    // real date, and it is continuous from its first epoch.
    var sampler = Self.unsynchronised
    var receiver = Receiver(receiver: Self.december, system: 40)
    let boot = Self.run(&sampler, &receiver, 10)
    #expect(boot.fed == 10 - TimeSampler.consistentEpochsNeeded)
    #expect(boot.said.isEmpty)
  }

  @Test func aStepOfTheSystemClockIsNoJumpOfTheReceiver() {
    // chrony steps the system clock by two seconds as it first synchronises: the receiver
    // and the raw clock agree.
    var sampler = Self.unsynchronised
    var receiver = Receiver(receiver: Self.december, system: Self.december + 2)
    _ = Self.run(&sampler, &receiver, 5)
    receiver.system -= 2
    let after = Self.run(&sampler, &receiver, 5)
    #expect(after.fed == 5 && after.said.isEmpty)
  }

  @Test func aDateBeforeThisReleaseIsNeverFedAndSaidOnce() {
    var sampler = TimeSampler()
    // 2024-05-01, the demo drive's date, with the system clock at the same (wrong) time.
    var receiver = Receiver(receiver: 1_714_521_600, system: 1_714_521_600)
    let old = Self.run(&sampler, &receiver, 30)
    #expect(old.fed == 0)
    #expect(old.said == [.beforeRelease(UTCDate(year: 2024, month: 5, day: 1))])
    #expect(
      old.said.first?.description.hasPrefix(
        "the receiver says 2024-05-01; that is before this release of gpsbridge: not fed to the clock") == true)
  }

  @Test func aWeekRolloverAfterGoodTimeIsNotFed() {
    var sampler = TimeSampler()
    var receiver = Receiver(receiver: Self.december, system: Self.december)
    _ = Self.run(&sampler, &receiver, 10)
    receiver.receiver -= 1024 * 7 * 86_400
    let rolled = Self.run(&sampler, &receiver, 700)
    #expect(rolled.fed == 0)
    #expect(rolled.said.count == 1)
  }

  @Test func theAdviceIsRobustAndNeverBeyondASecond() {
    // A minute of 150 ms delays with three wild ones: the median and MAD ignore them.
    var meter = OffsetMeter()
    for index in 0..<60 { meter.add(delay: [0.149, 0.150, 0.151][index % 3]) }
    for _ in 0..<3 { meter.add(delay: -36_000) }
    let report = meter.report!
    #expect(abs(report.delay - 0.150) < 1e-9)
    #expect(report.jitter < 0.002)
    #expect(report.isPlausible)
    // Delays of a time that is 35999.85 s off: no offset is advised.
    meter.reset()
    for _ in 0..<60 { meter.add(delay: -35_999.85) }
    let wrong = meter.report!
    #expect(!wrong.isPlausible)
    #expect(wrong.count == 60)
    #expect(wrong.summary.contains("No offset is advised"))
    #expect(!wrong.summary.contains("offset -"))
  }
}
