import NMEA
import Testing

/// Where one receiver epoch ends and the next begins, on the habits of real receivers: the
/// failure classes of issue 9, each pinned by a stream that used to come out wrong.
@Suite struct EpochBoundaryTests {
  static let date = UTCDate(year: 2024, month: 5, day: 1)

  /// A no-fix cycle as many receivers send it before they know the time: every field empty.
  static let untimedNoFixCycle = [
    nmea("GPGGA,,,,,,0,,,,M,,M,,"), nmea("GPRMC,,V,,,,,,,,,,N"), nmea("GPVTG,,T,,M,,N,,K,N"),
    nmea("GPGSA,A,1,,,,,,,,,,,,,,,"),
  ]

  /// GGA, then GLL, then RMC and VTG after them, as SiRF and MediaTek order their cycles;
  /// speed and course differ every second so a value from the wrong second shows.
  static func cycle(second: Int, speedKnots: Int, course: Int) -> [String] {
    let time = "1200" + (second < 10 ? "0\(second)" : "\(second)") + ".00"
    let minutes = "07.\(100 + second)"
    return [
      nmea("GPGGA,\(time),48\(minutes),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
      nmea("GPGLL,48\(minutes),N,01131.000,E,\(time),A,A"),
      nmea("GPRMC,\(time),A,48\(minutes),N,01131.000,E,\(speedKnots).0,\(course).0,010524,,,A"),
      nmea("GPVTG,\(course).0,T,,M,\(speedKnots).0,N,\(speedKnots * 2).0,K,A"),
    ]
  }

  static func decode(_ lines: [String], date: UTCDate? = Self.date) -> [Fix] {
    decodeFixes(Array(lines.joined().utf8), date: date)
  }

  // MARK: Stamps that jitter inside a burst

  /// An old handheld stamps GLL at .295 s and GGA and RMC at .30 s: one epoch a burst, the
  /// first burst included (before any rate is known), at the later stamp, as gpsd reports it.
  @Test func stampsAFewMillisecondsApartInOneBurstAreOneEpoch() {
    let bursts = (0..<4).flatMap { second in
      [
        nmea("GPGLL,4807.100,N,01131.000,E,12000\(second).295,A"),
        nmea("GPGGA,12000\(second).30,4807.100,N,01131.000,E,1,06,1.4,545.4,M,46.9,M,,"),
        nmea("GPRMC,12000\(second).30,A,4807.100,N,01131.000,E,5.0,90.0,010524,,,A"),
      ]
    }
    let fixes = Self.decode(bursts)
    #expect(fixes.map(\.time.description) == ["12:00:00.300", "12:00:01.300", "12:00:02.300", "12:00:03.300"])
    #expect(fixes.allSatisfy { $0.speed != nil && $0.altitude != nil })
  }

  /// A handheld that writes GLL's time to the millisecond and GGA's and RMC's to the hundredth
  /// (.303, then .30): the epoch takes its latest stamp, as gpsd does, whichever way the two
  /// differ (.297 then .30 too).
  @Test func aBurstTakesTheStampOfItsLatestTimedSentence() {
    let bursts = [("0.303", "0.30"), ("1.297", "1.30"), ("2.305", "2.31")].flatMap { gll, rest in
      [
        nmea("GPGLL,4807.100,N,01131.000,E,12000\(gll),A"),
        nmea("GPGGA,12000\(rest),4807.100,N,01131.000,E,1,06,1.4,545.4,M,46.9,M,,"),
        nmea("GPRMC,12000\(rest),A,4807.100,N,01131.000,E,5.0,90.0,010524,,,A"),
      ]
    }
    #expect(Self.decode(bursts).map(\.time.description) == ["12:00:00.300", "12:00:01.300", "12:00:02.310"])
  }

  /// A receiver that slips in an extra cycle 10 ms before the second (43.990, then 44.000,
  /// each with its own RMC and GGA): two epochs, however close, since each has its own RMC.
  @Test func aSentenceTheEpochHasHadBeginsTheNextEpochHoweverClose() {
    let cycles = [("43.000", "7732"), ("43.990", "7753"), ("44.000", "7760"), ("45.000", "7790")].flatMap { time, minutes in
      [
        nmea("GPRMC,1021\(time),A,3340.\(minutes),S,15117.4478,E,6.7,155.1,251112,0.0,W"),
        nmea("GPGGA,1021\(time),3340.\(minutes),S,15117.4478,E,1,03,4.1,063.76,M,22.4,M,,"),
        nmea("GNGSA,A,3,10,17,24,,,,,,,,,,4.5,4.1,1.9"),
      ]
    }
    let fixes = Self.decode(cycles)
    #expect(fixes.map(\.time.description) == ["10:21:43.000", "10:21:43.990", "10:21:44.000", "10:21:45.000"])
    #expect(fixes.map { (($0.latitude ?? 0) * -600_000).rounded() } == [20_207_732, 20_207_753, 20_207_760, 20_207_790])
  }

  /// A multiplexer that forwards a burst's GGA twice, around a GLL stamped to the millisecond
  /// (.30, .303, .30 again): the second GGA is the first one again, not a new epoch 3 ms back.
  @Test func theSameSentenceAgainWithItsOwnStampStaysInItsEpoch() {
    let bursts = (0..<3).flatMap { second in
      [
        nmea("GPGGA,12000\(second).30,4807.100,N,01131.000,E,1,06,1.4,545.4,M,46.9,M,,"),
        nmea("GPGLL,4807.100,N,01131.000,E,12000\(second).303,A"),
        nmea("GPGGA,12000\(second).30,4807.100,N,01131.000,E,1,06,1.4,545.4,M,46.9,M,,"),
        nmea("GPRMC,12000\(second).30,A,4807.100,N,01131.000,E,5.0,90.0,010524,,,A"),
      ]
    }
    #expect(Self.decode(bursts).map(\.time.description) == ["12:00:00.300", "12:00:01.300", "12:00:02.300"])
  }

  /// An old handheld that sends GGA every other second, before its GSA and RMC (RMC and GSA
  /// alone the other seconds): the GSA that ended an RMC-only epoch does not end a GGA epoch
  /// before its RMC, so every epoch has its RMC's speed and course.
  @Test func theLearnedEndWaitsForTheFixSentencesItsEpochHad() {
    // It starts on an RMC-only second: that epoch teaches the end (its GSA).
    let lines = (1..<9).flatMap { second -> [String] in
      let time = "04590\(second).000"
      let rmc = nmea("GPRMC,\(time),A,3519.90\(40 - second),N,13640.2632,E,0.1\(second),1\(second)0.00,270705,,")
      let gsa = nmea("GPGSA,A,3,09,05,14,26,,,,,,,,,2.9,2.2,1.9")
      guard second.isMultiple(of: 2) else { return [rmc, gsa] }
      return [nmea("GPGGA,\(time),3519.90\(40 - second),N,13640.2632,E,1,04,2.2,80.8,M,,,,0000"), gsa, rmc, gsa]
    }
    let fixes = Self.decode(lines)
    #expect(fixes.map(\.time.second) == Array(1..<9))
    #expect(fixes.map(\.course) == (1..<9).map { Double(10 + $0) * 10 })
  }

  // MARK: 1. A long no-fix period

  @Test func aLongUntimedNoFixPeriodDoesNotShiftLaterFixes() throws {
    let noFix = Array(repeatElement(Self.untimedNoFixCycle, count: 40).joined())
    let seconds = 0..<6
    let fixes = Self.decode(noFix + seconds.flatMap { Self.cycle(second: $0, speedKnots: 10 + $0, course: 100 + $0) })
    // Every timed epoch comes out, the first included, each with its own RMC's speed and course.
    #expect(fixes.map(\.time.second) == Array(seconds))
    for (second, fix) in zip(seconds, fixes) {
      #expect(fix.speed == Double(10 + second) * EpochAssembler.metresPerSecondPerKnot, "second \(second)")
      #expect(fix.course == Double(100 + second), "second \(second)")
      #expect(fix.latitude == 48 + Double(7.1 + Double(second) / 1000) / 60, "second \(second)")
    }
  }

  @Test func anUntimedNoFixPeriodNeverGrowsAnEpoch() throws {
    var assembler = EpochAssembler()
    let messages = try Self.untimedNoFixCycle.map { try Message(#require(Sentence($0))) }
    for _ in 0..<10_000 {
      for message in messages { assembler.add(message) }
    }
    #expect(assembler.nextFix() == nil)
    #expect(assembler.counters.untimedSentences == 40_000)
  }

  @Test func aNoFixPeriodInTheMiddleEndsTheOpenEpochAndIsNotMergedIntoTheNext() {
    let lines =
      Self.cycle(second: 0, speedKnots: 10, course: 100) + Self.cycle(second: 1, speedKnots: 11, course: 101)
      + Array(repeatElement(Self.untimedNoFixCycle, count: 3).joined())
      + Self.cycle(second: 5, speedKnots: 15, course: 105) + Self.cycle(second: 6, speedKnots: 16, course: 106)
    let fixes = Self.decode(lines)
    #expect(fixes.map(\.time.second) == [0, 1, 5, 6])
    #expect(fixes.map(\.course) == [100, 101, 105, 106])
    #expect(fixes.allSatisfy { $0.hasPosition })
  }

  // MARK: 2. The first fix after acquisition

  @Test func theFirstEpochWithAPositionAfterAnUntimedStartComesOutWithItsOwnValues() throws {
    let noFix = Array(repeatElement(Self.untimedNoFixCycle, count: 5).joined())
    let fixes = Self.decode(noFix + (0..<3).flatMap { Self.cycle(second: $0, speedKnots: 10 + $0, course: 100 + $0) })
    // The untimed GGAs said "quality 0"; that must not stick to the first real fix.
    #expect(fixes.filter { $0.hasPosition }.map(\.time.second) == [0, 1, 2])
    let first = try #require(fixes.first)
    #expect(first.quality == .gps && first.course == 100 && first.speed == 10 * EpochAssembler.metresPerSecondPerKnot)
  }

  @Test func theFixesAfterLosingTheSkyCarryTheirOwnValues() {
    // With no fix the receiver sends a shorter, timed cycle: GGA and RMC only.
    let noFix = (2..<4).flatMap { second in
      [nmea("GPGGA,12000\(second).00,,,,,0,00,,,M,,M,,"), nmea("GPRMC,12000\(second).00,V,,,,,,,010524,,,N")]
    }
    let lines =
      Self.cycle(second: 0, speedKnots: 10, course: 100) + Self.cycle(second: 1, speedKnots: 11, course: 101)
      + noFix + (4..<8).flatMap { Self.cycle(second: $0, speedKnots: 10 + $0, course: 100 + $0) }
    let fixes = Self.decode(lines)
    #expect(fixes.map(\.time.second) == Array(0..<8))
    #expect(fixes.map(\.hasPosition) == [true, true, false, false, true, true, true, true])
    // VTG comes after RMC: each second's course and speed are that second's own.
    #expect(fixes.filter { $0.hasPosition }.map(\.course) == [100, 101, 104, 105, 106, 107])
    #expect(
      fixes.filter { $0.hasPosition }.map { $0.speed.map { Int(($0 / EpochAssembler.metresPerSecondPerKnot).rounded()) } }
        == [10, 11, 14, 15, 16, 17])
  }

  // MARK: 3. The end of the stream

  @Test func aCaptureOfOneRMCGivesItsFix() throws {
    let fixes = Self.decode([nmea("GPRMC,120000.00,A,4807.038,N,01131.000,E,10.0,84.4,010524,,,A")], date: nil)
    let fix = try #require(fixes.first)
    #expect(fixes.count == 1 && fix.hasPosition && fix.course == 84.4)
    #expect(fix.timestamp?.description == "2024-05-01T12:00:00.000Z")
  }

  @Test func theLastEpochOfAStreamIsFlushedAtItsEnd() {
    let lines = (0..<4).flatMap { Self.cycle(second: $0, speedKnots: 10 + $0, course: 100 + $0) }
    #expect(Self.decode(lines).map(\.time.second) == [0, 1, 2, 3])
    // Cut after the GGA of the last second: that epoch still comes out.
    #expect(Self.decode(Array(lines.dropLast(3))).map(\.time.second) == [0, 1, 2, 3])
  }

  // MARK: 4. Values from another epoch

  @Test func anEpochWithOnlyGLLHasNoSpeedOrCourseFromTheEpochBefore() throws {
    // The first cycle lost its VTG to line noise, so it ended at RMC; the next ones are whole.
    let lines =
      Array(Self.cycle(second: 0, speedKnots: 10, course: 100).dropLast())
      + Self.cycle(second: 1, speedKnots: 11, course: 101)
      + [nmea("GPGLL,4807.200,N,01131.000,E,120002.00,A,A")]
      + Self.cycle(second: 3, speedKnots: 13, course: 103)
    let fixes = Self.decode(lines)
    #expect(fixes.map(\.time.second) == [0, 1, 2, 3])
    let gllOnly = try #require(fixes.first { $0.time.second == 2 })
    #expect(gllOnly.hasPosition && gllOnly.latitude == 48 + 7.2 / 60)
    #expect(gllOnly.speed == nil && gllOnly.course == nil && gllOnly.altitude == nil)
    #expect(fixes.map(\.course) == [100, 101, nil, 103])
  }

  // MARK: 5. Which sentence's position wins

  @Test func theLastPositionOfAnEpochWinsAsInGPSD() throws {
    // A marine gateway: the same time, positions sampled at different instants.
    let lines = [
      nmea("GPGGA,120000.00,4807.03812,N,01131.00045,E,1,08,0.9,545.4,M,46.9,M,,"),
      nmea("GPRMC,120000.00,A,4807.03870,N,01131.00051,E,10.0,84.4,010524,,,A"),
      nmea("GPGLL,4807.03901,N,01131.00077,E,120000.00,A,A"),
    ]
    let fix = try #require(Self.decode(lines).first)
    #expect(fix.latitude == 48 + 7.03901 / 60 && fix.longitude == 11 + 31.00077 / 60)
  }

  @Test func aLaterPositionThatIsAnEarlierOneRoundedKeepsTheMorePreciseOne() throws {
    let lines = [
      nmea("GPGGA,120000.00,2037.72792,N,10323.14368,W,1,08,0.9,545.4,M,46.9,M,,"),
      nmea("GPRMC,120000.00,A,2037.7279,N,10323.1437,W,10.0,84.4,010524,,,A"),
    ]
    let fix = try #require(Self.decode(lines).first)
    #expect(fix.latitude == 20 + 37.72792 / 60 && fix.longitude == -(103 + 23.14368 / 60))
    // A later position that differs by more than the rounding wins as usual.
    let moved = [lines[0], nmea("GPRMC,120000.00,A,2037.7281,N,10323.1437,W,10.0,84.4,010524,,,A")]
    #expect(try #require(Self.decode(moved).first).latitude == 20 + 37.7281 / 60)
  }

  @Test func speedAndCourseAreTheLastOfTheEpochToo() throws {
    let lines = [
      nmea("GPRMC,120000.00,A,4807.038,N,01131.000,E,10.0,84.4,010524,,,A"),
      nmea("GPVTG,85.0,T,,M,10.5,N,19.4,K,A"),
    ]
    let fix = try #require(Self.decode(lines).first)
    #expect(fix.course == 85 && fix.speed == 10.5 * EpochAssembler.metresPerSecondPerKnot)
  }

  // MARK: The rule's other cases

  @Test func aTimedSentenceOfAnotherTimeNeverMergesIntoTheOpenEpoch() {
    // GLL of the next second arrives before that second's GGA (a split-cycle receiver).
    let lines = [
      nmea("GPGGA,120000.00,4807.100,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
      nmea("GPRMC,120000.00,A,4807.100,N,01131.000,E,10.0,100.0,010524,,,A"),
      nmea("GPGLL,4807.101,N,01131.000,E,120001.00,A,A"),
      nmea("GPGGA,120001.00,4807.101,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
      nmea("GPRMC,120001.00,A,4807.101,N,01131.000,E,11.0,101.0,010524,,,A"),
    ]
    let fixes = Self.decode(lines)
    #expect(fixes.map(\.time.second) == [0, 1])
    #expect(fixes.map(\.course) == [100, 101])
  }

  @Test func aSentenceAfterTheLearnedEndUpdatesItsEpochAndReteachesTheEnd() {
    // The cycle ends at VTG for three seconds; then the receiver adds a GSA after VTG, with
    // DOPs that change the accuracy: an updated fix for that second, and from then on the
    // fix comes out at the GSA.
    func cycle(_ second: Int, withGSA: Bool) -> [String] {
      Self.cycle(second: second, speedKnots: 10, course: 100 + second)
        + (withGSA ? [nmea("GPGSA,A,3,04,05,09,12,,,,,,,,,2.0,1.2,1.6")] : [])
    }
    let lines = (0..<3).flatMap { cycle($0, withGSA: false) } + (3..<6).flatMap { cycle($0, withGSA: true) }
    var decoder = FixDecoder(defaultDate: Self.date)
    var emittedAfterLine: [[UTCTime]] = []
    for line in lines {
      decoder.append(Array(line.utf8))
      var times: [UTCTime] = []
      while let fix = decoder.next() { times.append(fix.time) }
      emittedAfterLine.append(times)
    }
    decoder.finish()
    while decoder.next() != nil {}
    let all = emittedAfterLine.flatMap { $0 }.map(\.second)
    #expect(all == [0, 1, 2, 3, 3, 4, 5])
    #expect(decoder.assembler.counters.lateSentences == 1)
    // Seconds 4 and 5 come out on their own GSA, the new end of the cycle.
    #expect(emittedAfterLine[lines.count - 1].map(\.second) == [5])
  }

  @Test func lateSentencesThatSayNothingNewEmitNothingAndTeachNothing() throws {
    // 10 Hz; on whole seconds GSV and a GLL repeating GGA's position follow the usual end.
    let lines = (0..<30).flatMap { index -> [String] in
      let time = "1200" + two(index / 10) + "." + String(index % 10) + "0"
      var cycle = [
        nmea("GNRMC,\(time),A,4807.\(1000 + index),N,01131.000,E,10.0,\(100 + index).0,010524,,,A"),
        nmea("GNGGA,\(time),4807.\(1000 + index),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        nmea("GNGSA,A,3,04,05,09,12,,,,,,,,,2.0,1.2,1.6,1"),
      ]
      if index % 10 == 0 {
        cycle += [
          nmea("GPGSV,1,1,04,04,40,100,45,05,30,200,40,09,10,300,33,12,20,120,30"),
          nmea("GNGLL,4807.\(1000 + index),N,01131.000,E,\(time),A,A"),
        ]
      }
      return cycle
    }
    var decoder = FixDecoder(defaultDate: Self.date)
    decoder.append(Array(lines.joined().utf8))
    decoder.finish()
    var fixes: [Fix] = []
    while let fix = decoder.next() { fixes.append(fix) }
    #expect(fixes.map { Int($0.course ?? 0) } == (0..<30).map { 100 + $0 })
    #expect(decoder.assembler.counters.updatedFixes == 0)
    #expect(decoder.assembler.counters.lateSentences == 4)
  }

  @Test(arguments: [0.5, 1, 5, 10, 20])
  func receiversAtEveryRateGiveEachEpochOnceWithItsOwnValues(_ hertz: Double) {
    let step = Int((1000 / hertz).rounded())
    let epochs = 0..<30
    let lines = epochs.flatMap { index -> [String] in
      let millis = index * step
      let time = UTCTime(nanosecondsSinceMidnight: (12 * 3600 * 1000 + Int64(millis)) * 1_000_000)
      let text = "12" + two(time.minute) + two(time.second) + "." + String(String(time.nanosecond / 1_000_000 + 1000).dropFirst())
      return [
        nmea("GNRMC,\(text),A,4807.\(1000 + index),N,01131.000,E,\(index).0,\(index + 10).0,010524,,,A"),
        nmea("GNGGA,\(text),4807.\(1000 + index),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        nmea("GNGSA,A,3,04,05,09,12,,,,,,,,,2.0,1.2,1.6,1"),
        nmea("GNGSA,A,3,66,67,,,,,,,,,,,2.0,1.2,1.6,2"),
      ]
    }
    let fixes = Self.decode(lines)
    #expect(fixes.count == epochs.count)
    #expect(fixes.map { Int($0.course ?? -1) } == epochs.map { $0 + 10 })
  }

  @Test func twoTimedTypesWithDifferentFractionsInOneCycleMakeOneEpoch() {
    // GGA stamped on the second, RMC 50 ms later, every cycle (1 Hz).
    let lines = (0..<6).flatMap { second -> [String] in
      [
        nmea("GPGGA,12000\(second).00,4807.\(100 + second),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        nmea("GPRMC,12000\(second).05,A,4807.\(100 + second),N,01131.000,E,10.0,\(100 + second).0,010524,,,A"),
      ]
    }
    let fixes = Self.decode(lines)
    // The first cycle comes before the receiver's rate is known, so it is two epochs; then one each.
    let whole = fixes.filter { $0.time.nanosecond == 0 }
    #expect(whole.map(\.time.second) == [0, 1, 2, 3, 4, 5])
    #expect(whole.dropFirst().allSatisfy { $0.course != nil && $0.altitude != nil })
    #expect(fixes.count == 7)
  }

  /// An instrument multiplexer stamps GGA with the last time it saw: after each second's RMC
  /// and GLL comes a GGA (and its GSA) stamped a second earlier, holding the new position.
  @Test func aGGAStampedWithThePreviousSecondNeverReopensThatEpoch() {
    let lines = (0..<5).flatMap { second in
      let minutes = "07.\(100 + second)"
      var burst = [
        nmea("GPRMC,12000\(second).00,A,48\(minutes),N,01131.000,E,5.0,90.0,010524,,,A"),
        nmea("GPGLL,48\(minutes),N,01131.000,E,12000\(second).00,A,A"), nmea("HEHDT,91.0,T"),
      ]
      if second > 0 {
        burst += [
          nmea("GPGGA,12000\(second - 1).00,48\(minutes),N,01131.000,E,1,07,1.1,3.0,M,40.0,M,,"),
          nmea("GPGSA,A,3,01,02,03,04,05,06,07,,,,,,2.0,1.1,1.7"),
        ]
      }
      return burst
    }
    var decoder = FixDecoder(defaultDate: Self.date)
    decoder.append(Array(lines.joined().utf8))
    var fixes: [Fix] = []
    while let fix = decoder.next() { fixes.append(fix) }
    decoder.finish()
    while let fix = decoder.next() { fixes.append(fix) }
    // One fix a second, in order, each with its own RMC's and GLL's position.
    #expect(fixes.map(\.time.second) == [0, 1, 2, 3, 4])
    let rmcLatitudes: [Double?] = (0..<5).map { (second: Int) -> Double? in 48 + (7.1 + Double(second) / 1000) / 60 }
    #expect(fixes.map(\.latitude) == rmcLatitudes)
    #expect(fixes.allSatisfy { $0.altitude == nil && $0.hdop == nil }, "nothing of the stragglers")
    #expect(decoder.assembler.counters.staleSentences == 8)
  }

  @Test func timeGoingBackwardsInASplicedLogClosesTheEpoch() {
    let lines =
      Self.cycle(second: 5, speedKnots: 15, course: 105) + Self.cycle(second: 6, speedKnots: 16, course: 106)
      + Self.cycle(second: 2, speedKnots: 12, course: 102) + Self.cycle(second: 3, speedKnots: 13, course: 103)
    let fixes = Self.decode(lines)
    #expect(fixes.map(\.time.second) == [5, 6, 2, 3])
    #expect(fixes.map(\.course) == [105, 106, 102, 103])
  }
}

private func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
