import NMEA
import Testing

@Suite struct EpochAssemblerTests {
  /// One epoch of a small receiver: RMC, GGA, GSA, then GLL last.
  static func epoch(_ time: String, talker: String = "GP", date: String = "010524", fix: Bool = true) -> [String] {
    if !fix {
      return [
        nmea("\(talker)RMC,\(time),V,,,,,,,\(date),,,N"), nmea("\(talker)GGA,\(time),,,,,0,00,,,,,,,"),
        nmea("\(talker)GSA,A,1,,,,,,,,,,,,,,,"), nmea("\(talker)GLL,,,,,\(time),V,N"),
      ]
    }
    return [
      nmea("\(talker)RMC,\(time),A,4807.038,N,01131.000,E,010.0,084.4,\(date),,,A"),
      nmea("\(talker)GGA,\(time),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
      nmea("\(talker)GSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1"),
      nmea("\(talker)GLL,4807.038,N,01131.000,E,\(time),A,A"),
    ]
  }

  /// Feeds lines one at a time; returns, per line, the fixes that became available after it.
  static func feed(_ lines: [String], date: UTCDate? = nil) -> [[Fix]] {
    var decoder = FixDecoder(defaultDate: date)
    return lines.map { line in
      decoder.append(Array(line.utf8))
      var fixes: [Fix] = []
      while let fix = decoder.next() { fixes.append(fix) }
      return fixes
    }
  }

  /// A receiver that sends GLL every other cycle, whose first cycle had one: the cycle's end
  /// (its GSA) waits for a GLL only until an epoch goes without one; from then on every epoch
  /// is emitted at its GSA again, with or without a GLL.
  @Test func aFixTypeSentEveryOtherCycleIsWaitedForOnlyOnce() {
    let lines = (0..<6).flatMap { second -> [String] in
      let time = "12000\(second).00"
      return [
        nmea("GPGGA,\(time),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        nmea("GPRMC,\(time),A,4807.038,N,01131.000,E,0.0,0.0,010524,,,A"),
      ] + (second.isMultiple(of: 2) ? [nmea("GPGLL,4807.038,N,01131.000,E,\(time),A,A")] : [])
        + [nmea("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1")]
    }
    let emitted = Self.feed(lines)
    // The line each fix came out after, by second: 0 at the next GGA (nothing learned yet), 1
    // at the next GGA too (its GSA came without the GLL the marker waited for), then each at
    // its own GSA.
    let after = (0..<6).map { second in emitted.firstIndex { $0.contains { $0.time.second == second } } ?? -1 }
    #expect(after == [4, 7, 10, 13, 17, 20])
  }

  @Test func fixIsEmittedOnTheCycleEndOnceLearnedNotAtTheNextEpoch() {
    let lines = Self.epoch("120000.00") + Self.epoch("120001.00") + Self.epoch("120002.00")
    let emitted = Self.feed(lines)
    // First epoch: closed by the next time stamp (the cycle end is not known yet).
    #expect(emitted[4].map(\.time) == [UTCTime(hour: 12, minute: 0, second: 0)])
    // Then each epoch is emitted on its own GLL, the sentence that ended the first cycle.
    #expect(emitted[7].map(\.time) == [UTCTime(hour: 12, minute: 0, second: 1)])
    #expect(emitted[11].map(\.time) == [UTCTime(hour: 12, minute: 0, second: 2)])
    #expect(emitted.flatMap { $0 }.count == 3)
  }

  @Test func mergedFixCarriesEveryEpochSentence() throws {
    let fixes = Self.feed(Self.epoch("120000.00") + Self.epoch("120001.00")).flatMap { $0 }
    let fix = try #require(fixes.last)
    #expect(fix.timestamp == UTCTimestamp(date: UTCDate(year: 2024, month: 5, day: 1), time: UTCTime(hour: 12, minute: 0, second: 1)))
    #expect(fix.mode == .threeD && fix.quality == .gps && fix.hasPosition)
    #expect(fix.latitude == 48 + 7.038 / 60 && fix.altitude == 545.4 && fix.geoidSeparation == 46.9)
    #expect(fix.ellipsoidalAltitude == 592.3)
    #expect(fix.speed == 10 * 1852.0 / 3600 && fix.course == 84.4)
    #expect(fix.satellitesUsed == 8 && fix.pdop == 2.5 && fix.hdop == 1.3 && fix.vdop == 2.1)
    #expect(fix.horizontalAccuracy == 1.3 * EpochAssembler.userEquivalentRangeError(for: .gps))
  }

  @Test func noFixEpochsHaveNoPosition() throws {
    let fixes = Self.feed(Self.epoch("120000.00", fix: false) + Self.epoch("120001.00", fix: false)).flatMap { $0 }
    #expect(fixes.count == 2)
    for fix in fixes {
      #expect(!fix.hasPosition && fix.mode == FixMode.none && fix.quality == .invalid)
      #expect(fix.latitude == nil && fix.speed == nil && fix.horizontalAccuracy == nil)
    }
  }

  @Test func voidRMCWithStalePositionIsNotAFix() throws {
    let lines = [nmea("GPRMC,120000,V,4807.038,N,01131.000,E,,,010524,,"), nmea("GPRMC,120001,V,4807.038,N,01131.000,E,,,010524,,")]
    let fixes = Self.feed(lines).flatMap { $0 }
    #expect(fixes.allSatisfy { !$0.hasPosition })
  }

  @Test func oneGGAPerConstellationMergesIntoOneFixPreferringTheCombinedSolution() throws {
    let time = "120000.00"
    let lines =
      [
        nmea("GPGGA,\(time),4807.000,N,01131.000,E,1,05,1.5,540.0,M,46.9,M,,"),
        nmea("GNGGA,\(time),4807.038,N,01131.000,E,1,12,0.7,545.4,M,46.9,M,,"),
        nmea("GLGGA,\(time),4807.100,N,01131.000,E,1,04,2.0,550.0,M,46.9,M,,"),
      ] + Self.epoch("120001.00")
    let fix = try #require(Self.feed(lines).flatMap { $0 }.first)
    #expect(fix.latitude == 48 + 7.038 / 60 && fix.altitude == 545.4 && fix.satellitesUsed == 12)
  }

  @Test func talkerSwitchingFromGPToGNStillGivesOneFixPerEpoch() {
    let lines =
      Self.epoch("120000.00") + Self.epoch("120001.00") + Self.epoch("120002.00", talker: "GN")
      + Self.epoch("120003.00", talker: "GN") + Self.epoch("120004.00", talker: "GN")
    let fixes = Self.feed(lines).flatMap { $0 }
    #expect(fixes.map(\.time.second) == [0, 1, 2, 3, 4])
  }

  @Test func timeGoingBackwardsStartsANewEpochAndKeepsTheDate() {
    let lines = Self.epoch("120005.00") + Self.epoch("120003.00") + Self.epoch("120004.00")
    let fixes = Self.feed(lines).flatMap { $0 }
    #expect(fixes.map(\.time.second) == [5, 3, 4])
    #expect(fixes.allSatisfy { $0.timestamp?.date == UTCDate(year: 2024, month: 5, day: 1) })
  }

  @Test func midnightRolloverAdvancesAnInferredDate() {
    let lines = ["235959.00", "000000.00", "000001.00"].map { nmea("GPGGA,\($0),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") }
    let fixes = Self.feed(lines + [nmea("GPGGA,000002.00,,,,,0,00,,,,,,,")], date: UTCDate(year: 2024, month: 12, day: 31))
      .flatMap { $0 }
    #expect(
      fixes.map { $0.timestamp?.description } == [
        "2024-12-31T23:59:59.000Z", "2025-01-01T00:00:00.000Z", "2025-01-01T00:00:01.000Z", "2025-01-01T00:00:02.000Z",
      ])
  }

  @Test func withoutAnyDateFixesHaveTimeButNoTimestamp() throws {
    let fixes = Self.feed([
      nmea("GPGGA,120000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
      nmea("GPGGA,120001,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
    ]).flatMap { $0 }
    #expect(fixes.count == 2 && fixes.allSatisfy { $0.timestamp == nil && $0.hasPosition })
  }

  @Test func captureDateCommentDatesAGGAOnlyStream() throws {
    let lines = [
      "# Date: 2024-05-01\r\n", nmea("GPGGA,120000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
      nmea("GPGGA,120001,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
    ]
    let fixes = Self.feed(lines).flatMap { $0 }
    #expect(fixes.map { $0.timestamp?.description } == ["2024-05-01T12:00:00.000Z", "2024-05-01T12:00:01.000Z"])
  }

  @Test func aMissingCycleEndFallsBackToTheNextTimeStamp() {
    var lines = Self.epoch("120000.00") + Self.epoch("120001.00") + Self.epoch("120002.00") + Self.epoch("120003.00")
    lines.remove(at: 11)  // the GLL of 12:00:02, lost to noise
    let emitted = Self.feed(lines)
    #expect(emitted.flatMap { $0 }.map(\.time.second) == [0, 1, 2, 3])
    #expect(emitted[11].map(\.time.second) == [2])  // closed by 12:00:03's RMC
  }

  @Test(arguments: [0.5, 1, 5, 10])
  func receiversAtAnyRateGiveOneFixPerEpoch(_ hertz: Double) {
    let step = Int((1000 / hertz).rounded())
    let times = (0..<20).map { index -> String in
      let millis = index * step
      let seconds = millis / 1000
      return String(format2(12)) + String(format2(seconds / 60)) + String(format2(seconds % 60)) + "."
        + String(String(millis % 1000 + 1000).dropFirst())
    }
    let lines = times.flatMap { Self.epoch($0) }
    let fixes = Self.feed(lines).flatMap { $0 }
    // Every epoch, the last included: it ends on the cycle end learned from the first.
    #expect(fixes.map(\.time) == times.map { UTCTime($0.prefix(2) + ":" + $0.dropFirst(2).prefix(2) + ":" + $0.dropFirst(4)) })
  }

  /// One epoch with `gsas` and a sky of GPS 4, 5, 12, SBAS 40 (in a GPS GSV) and GLONASS 66,
  /// 67; each satellite of its fix as constellation and number, `+` when used.
  static func satellitesInView(usedBy gsas: [String]) throws -> [String] {
    let lines =
      [nmea("GNGGA,120000.00,4807.038,N,01131.000,E,1,04,0.9,545.4,M,46.9,M,,")] + gsas
      + [
        nmea("GPGSV,1,1,04,04,40,100,45,05,30,200,40,12,10,300,,40,20,120,30"),
        nmea("GLGSV,1,1,02,66,50,050,41,67,05,060,"),
      ] + epoch("120001.00", talker: "GN")
    let fix = try #require(feed(lines).flatMap { $0 }.first)
    return fix.satellites.map { "\($0.constellation?.rawValue ?? "?")\($0.number)\($0.isUsed ? "+" : "")" }
  }

  @Test func satellitesInViewCarryUsedFlagsAndConstellations() throws {
    let gsas = [nmea("GNGSA,A,3,04,05,,,,,,,,,,,1.5,0.9,1.2,1"), nmea("GNGSA,A,3,66,,,,,,,,,,,,1.5,0.9,1.2,2")]
    #expect(try Self.satellitesInView(usedBy: gsas) == ["gps4+", "gps5+", "gps12", "sbas40", "glonass66+", "glonass67"])
  }

  /// Without a system ID, a GSA says which constellation through its talker or, for a
  /// combined `GN` sentence, through each number's range; a GPS sentence may list SBAS
  /// satellites by their own numbers.
  @Test(arguments: [["GNGSA": ["04", "40", "66"]], ["GPGSA": ["04", "40"], "GLGSA": ["66"]]])
  func usedFlagsWithoutASystemIDFollowTalkerAndNumberRanges(_ used: [String: [String]]) throws {
    // Twelve slots, then PDOP, HDOP, VDOP and no system ID.
    let gsas = used.keys.sorted().map { address in
      let numbers = used[address]!
      return nmea("\(address),A,3," + (numbers + Array(repeating: "", count: 12 - numbers.count)).joined(separator: ",") + ",1.5,0.9,1.2")
    }
    #expect(try Self.satellitesInView(usedBy: gsas) == ["gps4+", "gps5", "gps12", "sbas40+", "glonass66+", "glonass67"])
  }

  @Test func trueHeadingFromHDTAndTHSButNotFromInvalidTHS() throws {
    let base = Self.epoch("120000.00")
    let hdt = Self.feed(base + [nmea("HEHDT,123.4,T")] + Self.epoch("120001.00")).flatMap { $0 }
    #expect(hdt.first?.trueHeading == 123.4)
    let invalid = Self.feed(base + [nmea("GPTHS,123.4,V")] + Self.epoch("120001.00")).flatMap { $0 }
    #expect(invalid.first?.trueHeading == nil)
  }

  @Test func gstSigmasGiveTheAccuracies() throws {
    let lines = Self.epoch("120000.00") + [nmea("GPGST,120000.00,1.0,3.0,2.0,45.0,0.3,0.4,1.2")] + Self.epoch("120001.00")
    let fix = try #require(Self.feed(lines).flatMap { $0 }.first)
    #expect(fix.horizontalAccuracy == 0.5 && fix.verticalAccuracy == 1.2)
    #expect(fix.errorEstimate?.semiMajor == 3.0)
  }
}

private func format2(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
