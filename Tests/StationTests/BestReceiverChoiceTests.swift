import Framing
import NMEA
import Testing

@testable import Station

/// The virtual `best` receiver's choice, epoch by epoch, on receivers made up here: when it
/// switches, when it must not, and that its position does not jump when it does.
struct BestReceiverChoiceTests {
  /// An epoch of a receiver at `second` (1 Hz), `east` metres east of a point, of `quality`.
  static func fix(
    _ second: Int, east: Double = 0, quality: FixQuality = .gps, accuracy: Double? = 2.5, satellites: Int = 10, moving: Double = 0
  ) -> Fix {
    let start = UTCTimestamp(date: UTCDate(year: 2026, month: 12, day: 6), time: UTCTime(nanosecondsSinceMidnight: 0))
    let time = UTCTimestamp(nanosecondsSince1970: start.nanosecondsSince1970 + Int64(second) * 1_000_000_000)
    let metresPerDegree = 111_194.9 * 0.6777  // of longitude at 47.3° N
    var fix = Fix(
      time: time.time, timestamp: time, mode: .threeD, quality: quality, latitude: 47.3,
      longitude: 8.5 + (east + moving * Double(second)) / metresPerDegree, speed: moving, course: 90)
    fix.horizontalAccuracy = accuracy
    fix.satellitesUsed = satellites
    return fix
  }

  /// Plays receivers' epochs second by second: `epochs` says what each receiver sends at a
  /// second (`nil`: nothing). What `best` published, and its switches.
  static func play(
    _ names: [String], seconds: Range<Int>, rules: BestReceiverChoice.Rules = .init(),
    integrity: (String, Int) -> SignalIntegrity? = { _, _ in nil }, _ epochs: (String, Int) -> Fix?
  ) -> (published: [(second: Int, fix: Fix)], switches: [BestReceiverChoice.Switch], disagreeing: [String]) {
    var choice = BestReceiverChoice(rules: rules)
    var published: [(Int, Fix)] = []
    var switches: [BestReceiverChoice.Switch] = []
    var disagreeing: [String] = []
    for second in seconds {
      for (index, name) in names.enumerated() {
        guard let fix = epochs(name, second) else { continue }
        // Each receiver's epoch arrives a few milliseconds after the one before.
        let now = Duration.seconds(second) + .milliseconds(100 + 10 * index)
        // The receiver followed overdue before then: looked at when it is, as `best` does.
        if let deadline = choice.silenceDeadline, deadline < now {
          let outcome = choice.tick(at: deadline + .milliseconds(1))
          for fix in outcome.fixes { published.append((Int(fix.timestamp!.nanosecondsSince1970 / 1_000_000_000) % 86_400, fix)) }
          if let switched = outcome.switched { switches.append(switched) }
        }
        let outcome = choice.take(fix, of: name, integrity: integrity(name, second), at: now)
        for fix in outcome.fixes { published.append((Int(fix.timestamp!.nanosecondsSince1970 / 1_000_000_000) % 86_400, fix)) }
        if let switched = outcome.switched { switches.append(switched) }
        disagreeing += outcome.disagreeing
      }
    }
    return (published, switches, disagreeing)
  }

  @Test func twoAlikeReceiversWithSatellitesComingAndGoingNeverSwitch() {
    // Half an hour, the same class, accuracies and satellites varying a little each epoch.
    var generator = SystemRandomNumberGenerator()
    // (An epoch now and then is more than twice as accurate as the other's: never for 30 s.)
    let noise = (0..<1800).map { _ in (Double.random(in: 1.2...3.8, using: &generator), Int.random(in: 8...12, using: &generator)) }
    let result = Self.play(["ublox", "sirf"], seconds: 0..<1800) { name, second in
      let (accuracy, satellites) = noise[second]
      return name == "ublox"
        ? Self.fix(second, accuracy: accuracy, satellites: satellites)
        : Self.fix(second, east: 1, accuracy: 5 - accuracy, satellites: 20 - satellites)
    }
    #expect(result.switches.map(\.reason) == [.first], "\(result.switches)")
    // Published from the first choice on (once both have been heard and compared, in the
    // second after the first epoch): every epoch since.
    let seconds = result.published.map(\.second)
    #expect(seconds == Array(1..<1800), "from \(seconds.first ?? -1), \(seconds.count) epochs")
  }

  @Test func theChosenOneUnpluggedIsLeftWithNoEpochMissed() {
    let result = Self.play(["ublox", "sirf"], seconds: 0..<60) { name, second in
      name == "ublox" ? (second < 30 ? Self.fix(second) : nil) : Self.fix(second, east: 1)
    }
    #expect(result.switches.map(\.reason) == [.first, .silent], "\(result.switches)")
    #expect(result.switches.last?.to == "sirf")
    // Left once overdue by a second (at 31.1 s), with sirf's epoch of 30, which came
    // before: none missed. (The first choice is made in the second after the first epoch,
    // with the epoch of that second.)
    let seconds = result.published.map(\.second)
    #expect(seconds == Array(1..<60), "\(seconds)")
    #expect(Set(seconds).count == seconds.count, "a second published twice")
  }

  @Test func theChosenOneGoneIsLeftAtOnceWithTheOthersEpoch() {
    var choice = BestReceiverChoice()
    var published: [Int] = []
    func secondOf(_ fix: Fix) -> Int { Int(fix.timestamp!.nanosecondsSince1970 / 1_000_000_000) % 86_400 }
    for second in 0..<10 {
      published += choice.take(Self.fix(second), of: "ublox", at: .seconds(second) + .milliseconds(100)).fixes.map(secondOf)
      published += choice.take(Self.fix(second, east: 1), of: "sirf", at: .seconds(second) + .milliseconds(110)).fixes.map(secondOf)
    }
    #expect(choice.chosen == "ublox")
    // Unplugged after its epoch 9, the other's epoch 10 in first: best goes on with it at once.
    published += choice.take(Self.fix(10, east: 1), of: "sirf", at: .seconds(10) + .milliseconds(110)).fixes.map(secondOf)
    choice.remove("ublox")
    let outcome = choice.tick(at: .seconds(10) + .milliseconds(200))
    #expect(outcome.switched?.reason == .gone && outcome.switched?.to == "sirf")
    published += outcome.fixes.map(secondOf)
    #expect(published == Array(1...10), "\(published)")
  }

  @Test func aReceiverWithoutADateIsPublishedOnceAnEpoch() {
    var choice = BestReceiverChoice()
    var published: [UTCTime] = []
    for second in 0..<20 {
      var fix = Self.fix(second)
      fix.timestamp = nil
      // Each epoch twice: the second time updated by a late sentence.
      for _ in 0..<2 { published += choice.take(fix, of: "gga", at: .seconds(second)).fixes.map(\.time) }
    }
    #expect(published == (1..<20).map { Self.fix($0).time }, "\(published.map(\.description))")
  }

  @Test func leavingASpoofedReceiverWhoseTimeRanAheadStillPublishesTheOther() {
    var spoofed = SignalIntegrity()
    _ = spoofed.suspectSpoofing(.timeRate)
    // "a" is followed; from 10 s its time runs a minute ahead, and it says it is spoofed.
    let result = Self.play(["a", "b"], seconds: 0..<30, integrity: { name, second in name == "a" && second >= 10 ? spoofed : nil }) {
      name, second in
      name == "a" ? Self.fix(second >= 10 ? second + 60 : second) : Self.fix(second, east: 1)
    }
    #expect(result.switches.map(\.reason) == [.first, .attacked], "\(result.switches)")
    // After the switch, b's epochs go on, though a's published time was ahead of them.
    #expect(result.published.filter { $0.second >= 10 && $0.second < 30 }.count >= 19, "\(result.published.map(\.second))")
  }

  @Test func aSilentOneHertzReceiverIsLeftWithEveryEpochOfATenHertzOne() {
    var choice = BestReceiverChoice()
    var published: [Int64] = []
    let start = Self.fix(0).timestamp!.nanosecondsSince1970
    func tenths(_ fix: Fix) -> Int64 { (fix.timestamp!.nanosecondsSince1970 - start) / 100_000_000 }
    func epoch(_ tenth: Int, accuracy: Double) -> Fix {
      var fix = Self.fix(0, accuracy: accuracy)
      fix.timestamp = UTCTimestamp(nanosecondsSince1970: start + Int64(tenth) * 100_000_000)
      fix.time = fix.timestamp!.time
      return fix
    }
    // "slow" (1 Hz, more accurate: followed) falls silent after 5 s; "fast" (10 Hz) goes on.
    for tenth in 0..<120 {
      let now = Duration.milliseconds(100 * tenth + 50)
      if let deadline = choice.silenceDeadline, deadline < now { published += choice.tick(at: deadline).fixes.map(tenths) }
      if tenth % 10 == 0, tenth <= 50 { published += choice.take(epoch(tenth, accuracy: 1), of: "slow", at: now).fixes.map(tenths) }
      published += choice.take(epoch(tenth, accuracy: 3), of: "fast", at: now + .milliseconds(5)).fixes.map(tenths)
    }
    #expect(choice.chosen == "fast")
    // 1 Hz until 5 s, then every tenth the fast one gave: none missed, none twice.
    let after = published.drop { $0 <= 50 }
    #expect(Array(after) == Array(51..<120), "\(published)")
  }

  /// A receiver whose epoch is updated by a late sentence sends the same epoch twice: that is
  /// no interval, and it does not look silent at the next epoch.
  @Test func anEpochUpdatedByALateSentenceDoesNotMakeItsReceiverLookSilent() {
    var choice = BestReceiverChoice()
    var switches: [BestReceiverChoice.Switch] = []
    for second in 0..<60 {
      let base = Duration.seconds(second) + .milliseconds(100)
      for (fix, name, at) in [
        (Self.fix(second), "ublox", base), (Self.fix(second), "ublox", base + .milliseconds(30)),
        (Self.fix(second, east: 1), "sirf", base + .milliseconds(60)),
      ] {
        if let switched = choice.take(fix, of: name, at: at).switched { switches.append(switched) }
      }
    }
    #expect(switches.map(\.reason) == [.first], "\(switches)")
  }

  /// Leaving a spoofed receiver, `best` does not blend from its position: it is the one not
  /// to keep.
  @Test func leavingASpoofedReceiverTakesTheOthersPositionAtOnce() {
    var spoofed = SignalIntegrity()
    _ = spoofed.suspectSpoofing(.timeRate)
    let result = Self.play(
      ["ublox", "sirf"], seconds: 0..<30, integrity: { name, second in name == "ublox" && second >= 20 ? spoofed : nil }
    ) { name, second in
      Self.fix(second, east: name == "ublox" ? 300 : 0)
    }
    let first = result.published.first { $0.second >= 20 }
    #expect(first.map { BestReceiverChoice.metres(between: $0.fix, and: Self.fix(20)) < 0.01 } == true)
  }

  @Test func rtkFixedOnTheOtherWinsOnceItHasHeld() {
    let result = Self.play(["ublox", "rtk"], seconds: 0..<60) { name, second in
      name == "ublox"
        ? Self.fix(second)
        : Self.fix(second, east: 0.5, quality: second >= 20 ? .rtkFixed : .gps, accuracy: second >= 20 ? 0.02 : 3)
    }
    #expect(result.switches.map(\.reason) == [.first, .betterClass], "\(result.switches)")
    let moved = try? #require(result.switches.last?.time)
    // RTK fixed from second 20, held 5 s: chosen at 25.
    #expect(moved.map { Int($0.nanosecondsSince1970 / 1_000_000_000) % 86_400 } == 25)
  }

  @Test func aChosenReceiverFallingToAWorseFixIsLeftAtOnce() {
    let result = Self.play(["rtk", "ublox"], seconds: 0..<40) { name, second in
      name == "rtk"
        ? Self.fix(second, quality: second >= 20 ? .gps : .rtkFixed, accuracy: second >= 20 ? 8 : 0.02)
        : Self.fix(second, east: 0.3, quality: .dgps, accuracy: 1)
    }
    #expect(result.switches.map(\.reason) == [.first, .worseClass], "\(result.switches)")
    #expect(
      result.switches.last.map { $0.to == "ublox" && $0.time.map { Int($0.nanosecondsSince1970 / 1_000_000_000) % 86_400 } == 20 } == true)
  }

  @Test func aSpoofedReceiverIsLeftWithinAnEpoch() {
    var spoofed = SignalIntegrity()
    _ = spoofed.suspectSpoofing(.timeRate)
    let result = Self.play(
      ["ublox", "sirf"], seconds: 0..<40, integrity: { name, second in name == "ublox" && second >= 20 ? spoofed : nil }
    ) { name, second in
      Self.fix(second, east: name == "ublox" ? 0 : 1)
    }
    #expect(result.switches.map(\.reason) == [.first, .attacked], "\(result.switches)")
    // The spoofed epoch itself is not published: best moved before it.
    #expect(result.published.filter { $0.second == 20 }.count == 1)
    #expect(result.switches.last?.to == "sirf")
  }

  @Test func aMoreAccurateReceiverWinsOnlyAfterHoldingIt() {
    let result = Self.play(["ublox", "better"], seconds: 0..<90) { name, second in
      name == "ublox" ? Self.fix(second, accuracy: 3) : Self.fix(second, east: 1, accuracy: second >= 10 ? 1 : 3)
    }
    #expect(result.switches.map(\.reason) == [.first, .moreAccurate], "\(result.switches)")
    #expect(result.switches.last?.time.map { Int($0.nanosecondsSince1970 / 1_000_000_000) % 86_400 } == 40)
  }

  /// 100 forced switches between receivers 5 m apart while moving: the position `best`
  /// publishes never moves by more than the larger stated error from one epoch to the next,
  /// beyond the motion itself.
  @Test func aSwitchDoesNotMakeThePositionJump() {
    // Each receiver in turn falls silent for a few seconds, 100 times.
    let result = Self.play(["a", "b"], seconds: 0..<1000) { name, second in
      let silent = (second / 5) % 2 == (name == "a" ? 0 : 1) && second % 5 >= 2
      return silent ? nil : Self.fix(second, east: name == "a" ? 0 : 5, accuracy: 2.5, moving: 3)
    }
    #expect(result.switches.count >= 100, "\(result.switches.count) switches")
    var largest = 0.0
    for (previous, next) in zip(result.published, result.published.dropFirst()) {
      let moved = BestReceiverChoice.metres(between: previous.fix, and: next.fix)
      let motion = 3.0 * Double(next.second - previous.second)
      largest = max(largest, abs(moved - motion))
    }
    #expect(largest <= 2.5, "jumped \(largest) m beyond the motion")
    // The same with a blend longer than the time between switches: each switch blends from
    // where best was, not from the receiver left.
    var slow = BestReceiverChoice.Rules()
    slow.blend = .seconds(20)
    let overlapping = Self.play(["a", "b"], seconds: 0..<200, rules: slow) { name, second in
      let silent = (second / 5) % 2 == (name == "a" ? 0 : 1) && second % 5 >= 2
      return silent ? nil : Self.fix(second, east: name == "a" ? 0 : 5, accuracy: 2.5, moving: 3)
    }
    let overlappingJump =
      zip(overlapping.published, overlapping.published.dropFirst()).map { previous, next in
        abs(BestReceiverChoice.metres(between: previous.fix, and: next.fix) - 3.0 * Double(next.second - previous.second))
      }.max() ?? 0
    #expect(overlappingJump <= 2.5, "jumped \(overlappingJump) m beyond the motion with overlapping blends")
    // After the blend, best is the chosen receiver's own position again.
    let quiet = Self.play(["a", "b"], seconds: 0..<40) { name, second in
      name == "a" ? (second < 10 ? Self.fix(second) : nil) : Self.fix(second, east: 5)
    }
    let last = quiet.published.last!.fix
    #expect(abs(BestReceiverChoice.metres(between: last, and: Self.fix(39, east: 5))) < 0.01)
    let first = quiet.published.first { $0.second >= 11 }!.fix
    #expect(BestReceiverChoice.metres(between: first, and: Self.fix(11)) < 1.1, "the first epoch after the switch")
  }

  @Test func aReceiverThatDisagreesWithTwoOthersIsSaidAndNeverChosen() {
    // "far" is best by its stated accuracy, but 80 m from the two others, which agree.
    let result = Self.play(["far", "a", "b"], seconds: 0..<60) { name, second in
      switch name {
      case "far": Self.fix(second, east: 80, accuracy: 0.5)
      case "a": Self.fix(second, accuracy: 3)
      default: Self.fix(second, east: 2, accuracy: 3)
      }
    }
    #expect(result.disagreeing == ["far"], "\(result.disagreeing)")
    #expect(!result.switches.contains { $0.to == "far" }, "\(result.switches)")
    #expect(result.published.map(\.second) == Array(1..<60))
    // Two alone that disagree: said, and the chosen one kept.
    let two = Self.play(["a", "b"], seconds: 0..<20) { name, second in Self.fix(second, east: name == "a" ? 0 : 80, accuracy: 3) }
    #expect(Set(two.disagreeing) == ["a", "b"] && two.disagreeing.count == 2, "\(two.disagreeing)")
    #expect(two.switches.map(\.reason) == [.first])
  }
}
