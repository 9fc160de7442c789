import NMEA
import Testing

/// Bursts some of whose sentences carry the next second: one location per burst, at the fix's
/// own second, holding what the burst said (issue 31, part 3).
@Suite struct RestampedBurstTests {
  static let date = UTCDate(year: 2024, month: 5, day: 1)

  /// A position that moves every second, so a sentence from another burst shows.
  static func position(_ second: Int) -> String { "4807.\(100 + second),N,01131.000,E" }

  static func decode(_ lines: [String], date: UTCDate? = Self.date) -> (fixes: [Fix], counters: EpochAssembler.Counters) {
    var decoder = FixDecoder(defaultDate: date)
    decoder.append(Array(lines.joined().utf8))
    var fixes: [Fix] = []
    while let fix = decoder.next() { fixes.append(fix) }
    decoder.finish()
    while let fix = decoder.next() { fixes.append(fix) }
    return (fixes, decoder.assembler.counters)
  }

  /// An old handheld with a two-second cycle stamps each sentence with the second it leaves
  /// in: RMC and GGA at the fix's second, GSA and GLL more than a second later.
  @Test func aHandheldsSentencesSentInTheNextSecondStayInTheirBurst() {
    let lines = stride(from: 0, to: 8, by: 2).flatMap { second in
      [
        nmea("GPRMC,12000\(second),A,\(Self.position(second)),\(second + 8).0,9\(second),010524,,,"),
        nmea("GPGGA,12000\(second),\(Self.position(second)),1,05,1.5,372.0,M,-2.0,M,,"),
        nmea("GPGSA,A,3,10,14,15,16,31,,,,,,,,2.4,1.5,1.9"),
        nmea("GPGLL,\(Self.position(second)),12000\(second + 1),A"),
      ]
    }
    let (fixes, counters) = Self.decode(lines)
    // From the very first burst, before any rate is known.
    #expect(fixes.map(\.time.second) == [0, 2, 4, 6])
    #expect(fixes.map(\.course) == [90, 92, 94, 96])
    #expect(fixes.allSatisfy { $0.altitude == 372 && $0.pdop == 2.4 })
    #expect(counters.restampedSentences == 4)
  }

  /// A handheld standing still, whose 3-decimal position flickers in its last digit (a TN204
  /// sends RMC at the even second, GGA and GLL the second after, all at 0.0 knots): its
  /// speed says it stands, so a position that changed from the burst before does not make a
  /// sentence a second later its burst's; each stamp is an epoch, as the receiver says.
  @Test func aStandingHandheldWhoseLastDigitFlickersIsNotTakenForMoving() {
    let lines = stride(from: 0, to: 8, by: 2).flatMap { second in
      let place = "3348.60\(second / 2),N,11821.126,W"
      let next = "3348.60\(second / 2 + 1),N,11821.126,W"
      return [
        nmea("GPRMC,23010\(second),A,\(place),000.0,209.4,261002,013.8,E"),
        nmea("GPGGA,23010\(second + 1),\(next),1,05,1.7,49.4,M,-32.4,M,,"),
        nmea("GPGLL,\(next),23010\(second + 1),A"),
      ]
    }
    let (fixes, counters) = Self.decode(lines)
    #expect(fixes.map(\.time.second) == Array(0..<8))
    #expect(counters.restampedSentences == 0)
  }

  /// A handheld carried at a walk or on a bicycle (5 knots, slower than two of its position's
  /// last digits a second at 3 decimals): its speed says it moves, not that it stands, so a
  /// position that changed from the burst before still keeps its late GLL in its burst.
  @Test func aSlowlyMovingHandheldsLateSentencesStayInTheirBurst() {
    let lines = stride(from: 0, to: 8, by: 2).flatMap { second in
      [
        nmea("GPRMC,12000\(second),A,\(Self.position(second)),005.0,90.0,010524,,,"),
        nmea("GPGGA,12000\(second),\(Self.position(second)),1,05,1.5,372.0,M,-2.0,M,,"),
        nmea("GPGLL,\(Self.position(second)),12000\(second + 1),A"),
      ]
    }
    let (fixes, counters) = Self.decode(lines)
    // The first burst has none before it to say it moves: its GLL is an epoch of its own.
    #expect(fixes.map(\.time.second) == [0, 1, 2, 4, 6])
    #expect(counters.restampedSentences == 3)
  }

  /// The same handheld, standing still at first: its bursts cannot be told from two epochs
  /// until it moves, and then they are whole again, though its end of cycle was learned from
  /// a split burst.
  @Test func aHandheldThatStartsStandingStillIsWholeOnceItMoves() {
    let lines = stride(from: 0, to: 12, by: 2).flatMap { second in
      let place = Self.position(second < 4 ? 0 : second)
      return [
        nmea("GPRMC,1200\(two(second)),A,\(place),\(second < 4 ? 0 : 9).0,9\(second / 2),010524,,,"),
        nmea("GPGGA,1200\(two(second)),\(place),1,05,1.5,372.0,M,-2.0,M,,"),
        nmea("GPGSA,A,3,10,14,15,16,31,,,,,,,,2.4,1.5,1.9"),
        nmea("GPGLL,\(place),1200\(two(second + 1)),A"),
      ]
    }
    let (fixes, _) = Self.decode(lines)
    // Standing still, 0 and 2 split (their GLL's seconds, 1 and 3, are locations of their
    // own); 4 is the first burst that moved, whole, and so are all after it.
    #expect(fixes.map(\.time.second) == [0, 1, 2, 3, 4, 6, 8, 10])
    #expect(fixes.suffix(4).map(\.course) == [92, 93, 94, 95])
    #expect(Set(fixes.map(\.time.second)).count == fixes.count, "no time twice")
  }

  /// A multiplexer forwards GGA and GLL and adds RMC and ZDA stamped by its own clock, a
  /// second ahead, with the same position: each location has its own burst's course.
  @Test func aMultiplexersRMCAndZDAStampedASecondAheadStayInTheirBurst() {
    let lines = (0..<5).flatMap { second in
      [
        nmea("GPGGA,12000\(second).00,\(Self.position(second)),1,09,0.9,4.0,M,44.0,M,,"),
        nmea("GPGLL,\(Self.position(second)),12000\(second).00,A,A"),
        nmea("GPRMC,12000\(second + 1).00,A,\(Self.position(second)),9.7,\(100 + second).0,010524,,,A"),
        nmea("GPZDA,12000\(second + 1).00,01,05,2024,00,00"),
      ]
    }
    let (fixes, counters) = Self.decode(lines)
    #expect(fixes.map(\.time.second) == [0, 1, 2, 3, 4])
    #expect(fixes.map(\.course) == [100, 101, 102, 103, 104])
    let latitudes: [Double?] = (0..<5).map { 48 + (7.1 + Double($0) / 1000) / 60 }
    #expect(fixes.map(\.latitude) == latitudes)
    #expect(counters.restampedSentences == 10)
  }

  /// The next epoch of a moving receiver never repeats the position, so a cycle that begins
  /// with a sentence the last one lacked still starts a new epoch.
  @Test func theNextEpochWithAnotherPositionIsNotJoined() {
    let lines = (0..<4).flatMap { second in
      // GLL is lost in every other epoch; the next epoch begins with it.
      (second % 2 == 0 ? [] : [nmea("GPGLL,\(Self.position(second)),12000\(second).00,A,A")]) + [
        nmea("GPGGA,12000\(second).00,\(Self.position(second)),1,09,0.9,4.0,M,44.0,M,,"),
        nmea("GPRMC,12000\(second).00,A,\(Self.position(second)),9.7,\(100 + second).0,010524,,,A"),
      ]
    }
    let (fixes, counters) = Self.decode(lines)
    #expect(fixes.map(\.time.second) == [0, 1, 2, 3])
    #expect(fixes.map(\.course) == [100, 101, 102, 103])
    #expect(counters.restampedSentences == 0)
  }

  /// A receiver standing still repeats its position to the last digit, so its next epoch
  /// cannot be told from a re-stamped sentence: nothing joins, and every second has its one
  /// location with its own course.
  @Test func aReceiverStandingStillStillGivesOneLocationPerSecond() {
    let lines = (0..<6).flatMap { second in
      (second % 2 == 0 ? [] : [nmea("GPGLL,\(Self.position(0)),12000\(second).00,A,A")]) + [
        nmea("GPGGA,12000\(second).00,\(Self.position(0)),1,09,0.9,4.0,M,44.0,M,,"),
        nmea("GPRMC,12000\(second).00,A,\(Self.position(0)),0.0,\(100 + second).0,010524,,,A"),
      ]
    }
    let (fixes, counters) = Self.decode(lines)
    #expect(fixes.map(\.time.second) == [0, 1, 2, 3, 4, 5])
    #expect(fixes.map(\.course) == [100, 101, 102, 103, 104, 105])
    #expect(counters.updatedFixes == 0 && counters.restampedSentences == 0)
  }

  /// The multiplexer's RMC and ZDA for the burst at 23:59:59 carry 00:00:00 and the next day's
  /// date: the location keeps its own day.
  @Test func aBurstAcrossMidnightKeepsItsOwnDay() {
    let lines = [
      nmea("GPGGA,235959.00,\(Self.position(0)),1,09,0.9,4.0,M,44.0,M,,"),
      nmea("GPGLL,\(Self.position(0)),235959.00,A,A"),
      nmea("GPRMC,000000.00,A,\(Self.position(0)),9.7,100.0,020524,,,A"),
      nmea("GPZDA,000000.00,02,05,2024,00,00"),
      nmea("GPGGA,000000.00,\(Self.position(1)),1,09,0.9,4.0,M,44.0,M,,"),
      nmea("GPGLL,\(Self.position(1)),000000.00,A,A"),
      nmea("GPRMC,000001.00,A,\(Self.position(1)),9.7,101.0,020524,,,A"),
      nmea("GPZDA,000001.00,02,05,2024,00,00"),
    ]
    let (fixes, _) = Self.decode(lines, date: nil)
    #expect(fixes.map { $0.timestamp?.description } == ["2024-05-01T23:59:59.000Z", "2024-05-02T00:00:00.000Z"])
  }

  /// A handheld's burst stamped a few milliseconds apart across midnight: RMC at 23:59:59.996
  /// with the old date, GGA at 00:00:00.002. The epoch takes the later stamp, and the next day.
  @Test func millisecondsApartAcrossMidnightTakeTheRightDay() {
    let lines = [
      nmea("GPRMC,235959.996,A,\(Self.position(0)),2.3,90.0,010524,,,A"),
      nmea("GPGGA,000000.002,\(Self.position(0)),1,05,2.0,10.0,M,12.0,M,,"),
      nmea("GPRMC,000001.000,A,\(Self.position(1)),2.3,90.0,020524,,,A"),
      nmea("GPGGA,000001.004,\(Self.position(1)),1,05,2.0,10.0,M,12.0,M,,"),
    ]
    let (fixes, _) = Self.decode(lines, date: nil)
    #expect(fixes.map { $0.timestamp?.description } == ["2024-05-02T00:00:00.002Z", "2024-05-02T00:00:01.004Z"])
  }
}

private func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
