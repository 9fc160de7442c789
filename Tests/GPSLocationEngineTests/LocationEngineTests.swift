import Foundation
import GPSLocationEngine
import NMEA
import Testing

@Suite struct LocationEngineTests {
  @Test func updatesDeliverEachFixWhileUpdatingAndNothingAfterStop() {
    var engine = LocationEngine()
    #expect(engine.handle(fix(0)).isEmpty)
    engine.startUpdatingLocation()
    #expect(locations(engine.handle(fix(1))).count == 1)
    #expect(locations(engine.handle(fix(2, north: 1))).count == 1)
    engine.stopUpdatingLocation()
    #expect(engine.handle(fix(3)).isEmpty)
  }

  /// An epoch updated by a late sentence comes again at the same time: one location per
  /// epoch.
  @Test func anEpochGivenAgainIsNoSecondLocation() {
    var engine = LocationEngine()
    engine.startUpdatingLocation()
    #expect(locations(engine.handle(fix(1))).count == 1)
    #expect(locations(engine.handle(fix(1, north: 0.5))).isEmpty)
    #expect(engine.location.map { $0.coordinate.latitude } == fix(1).latitude)
    #expect(locations(engine.handle(fix(2, north: 1))).count == 1)
  }

  /// A receiver whose clock goes back over seconds it has given locations for (a boat's
  /// plotter that went from 19:41:24 back to 19:41:11 and on): no second location for those
  /// times; locations again once its time passes the latest.
  @Test func aClockThatGoesBackGivesNoLocationForATimeAlreadyGiven() {
    var engine = LocationEngine()
    engine.startUpdatingLocation()
    for second in 0...24 { _ = engine.handle(fix(Double(second), north: Double(second))) }
    let again = (11...26).map { second in locations(engine.handle(fix(Double(second), north: Double(second) + 14))).count }
    #expect(again == Array(repeating: 0, count: 14) + [1, 1])
    // 11 to 23 went back; 24 again is the time of the latest location, as an updated epoch's.
    #expect(engine.statistics.timeWentBack == 13)
  }

  /// A second the first pass lost (its RMC garbled) is new on the second pass, and the seconds
  /// after it still went back: only the lost one is a location.
  @Test func aSecondLostTheFirstTimeIsTheOnlyNewOneWhenTheClockGoesBack() {
    var engine = LocationEngine()
    engine.startUpdatingLocation()
    for second in 0...24 where second != 15 { _ = engine.handle(fix(Double(second), north: Double(second))) }
    let again = (11...26).map { second in locations(engine.handle(fix(Double(second), north: Double(second) + 14))).count }
    #expect(again == Array(repeating: 0, count: 4) + [1] + Array(repeating: 0, count: 9) + [1, 1])
  }

  /// A receiver that moves its epochs to another phase of the second (53.71, then 53.408):
  /// a time not given yet is a location, even a little before the latest.
  @Test func anEpochMovedToAnotherPhaseOfTheSecondIsALocation() {
    var engine = LocationEngine()
    engine.startUpdatingLocation()
    _ = engine.handle(fix(52.71))
    _ = engine.handle(fix(53.71))
    #expect(locations(engine.handle(fix(53.408, north: 1))).count == 1)
    #expect(locations(engine.handle(fix(54.408, north: 2))).count == 1)
    #expect(locations(engine.handle(fix(53.71, north: 3))).isEmpty)
  }

  /// Further back than a minute is another recording (two captures spliced), and after the
  /// source starts over (a looped replay's next round) any time is new.
  @Test func anotherRecordingOrARestartedSourceStartsItsOwnTime() {
    var engine = LocationEngine()
    engine.startUpdatingLocation()
    _ = engine.handle(fix(1200))
    #expect(locations(engine.handle(fix(0))).count == 1)
    _ = engine.handle(fix(10))
    engine.sourceRestarted()
    #expect(locations(engine.handle(fix(1))).count == 1)
    #expect(locations(engine.handle(fix(2))).count == 1)
    #expect(engine.statistics.timeWentBack == 0)
  }

  @Test func noFixEpochsAreNotLocations() {
    var engine = LocationEngine()
    engine.startUpdatingLocation()
    #expect(engine.handle(fix(0, hasFix: false)).isEmpty)
    #expect(engine.location == nil)
  }

  @Test func distanceFilterDeliversOnlyAfterMovingFarEnough() {
    var engine = LocationEngine()
    engine.set(.init(distanceFilter: 10))
    engine.startUpdatingLocation()
    let delivered = (0..<10).map { second in locations(engine.handle(fix(Double(second), north: Double(second) * 4))).count }
    // 0 m, then 12 m, 24 m, 36 m: every third fix at 4 m per second.
    #expect(delivered == [1, 0, 0, 1, 0, 0, 1, 0, 0, 1])
  }

  @Test func desiredAccuracyHoldsBackPoorFixes() {
    var engine = LocationEngine()
    engine.set(.init(desiredAccuracy: 10))
    engine.startUpdatingLocation()
    #expect(locations(engine.handle(fix(0, accuracy: 25))).isEmpty)
    #expect(locations(engine.handle(fix(1, accuracy: 8))).count == 1)
  }

  @Test func requestLocationAnswersWithTheFirstGoodEnoughFix() {
    var engine = LocationEngine()
    engine.set(.init(desiredAccuracy: 10))
    engine.requestLocation(now: .zero)
    #expect(engine.needsSource)
    #expect(engine.handle(fix(0, accuracy: 30)).isEmpty)
    let answer = locations(engine.handle(fix(1, accuracy: 6)))
    #expect(answer.map(\.horizontalAccuracy) == [6])
    #expect(!engine.needsSource && engine.nextDeadline == nil)
  }

  @Test func requestLocationTimesOutWithTheBestFixSeen() {
    var engine = LocationEngine()
    engine.set(.init(desiredAccuracy: 5))
    engine.requestLocation(now: .zero)
    _ = engine.handle(fix(0, accuracy: 30))
    _ = engine.handle(fix(1, accuracy: 12))
    _ = engine.handle(fix(2, accuracy: 20))
    #expect(engine.nextDeadline == .seconds(10))
    #expect(engine.advance(to: .seconds(9)).isEmpty)
    #expect(locations(engine.advance(to: .seconds(10))).map(\.horizontalAccuracy) == [12])
  }

  @Test func requestLocationWithoutAnyFixFailsWithLocationUnknown() throws {
    var engine = LocationEngine()
    engine.requestLocation(now: .zero)
    let actions = engine.advance(to: .seconds(10))
    guard case .didFailWithError(let error) = try #require(actions.first) else {
      Issue.record("expected an error, got \(actions)")
      return
    }
    #expect(error.code == .locationUnknown && actions.count == 1)
  }

  @Test func twoOverlappingRequestsEachGetAnAnswer() {
    var engine = LocationEngine()
    engine.set(.init(desiredAccuracy: 5))
    engine.requestLocation(now: .zero)
    _ = engine.handle(fix(0, accuracy: 20))
    engine.requestLocation(now: .seconds(5))
    _ = engine.handle(fix(6, accuracy: 15))
    // The first times out with the best it saw; the second keeps waiting, then gets its own.
    #expect(locations(engine.advance(to: .seconds(10))).map(\.horizontalAccuracy) == [15])
    #expect(engine.nextDeadline == .seconds(15))
    #expect(locations(engine.handle(fix(12, accuracy: 4))).map(\.horizontalAccuracy) == [4])
    #expect(engine.nextDeadline == nil)
  }

  @Test func requestAndUpdatesTogetherDeliverTheFixOnce() {
    var engine = LocationEngine()
    engine.startUpdatingLocation()
    engine.requestLocation(now: .zero)
    #expect(engine.handle(fix(0)).count == 1)
  }

  @Test func headingComesFromCourseOnlyWhenMovingFastEnough() {
    var engine = LocationEngine()
    engine.startUpdatingHeading()
    #expect(engine.handle(fix(0, speed: 0.4, course: 90)).isEmpty)
    let actions = engine.handle(fix(1, speed: 10, course: 90, magneticVariation: 3))
    guard case .didUpdateHeading(let heading) = actions.first else {
      Issue.record("expected a heading, got \(actions)")
      return
    }
    #expect(heading.trueHeading == 90 && heading.magneticHeading == 87)
    #expect(abs(heading.headingAccuracy - atan2(0.5, 10) * 180 / .pi) < 1e-12)
  }

  @Test func sensorHeadingTakesPrecedenceAndWorksStandingStill() {
    var engine = LocationEngine()
    engine.startUpdatingHeading()
    let actions = engine.handle(fix(0, speed: 0, course: 90, trueHeading: 271.5))
    guard case .didUpdateHeading(let heading) = actions.first else {
      Issue.record("expected a heading, got \(actions)")
      return
    }
    #expect(heading.trueHeading == 271.5 && heading.headingAccuracy == 1 && heading.magneticHeading < 0)
  }

  @Test func headingFilterSkipsSmallTurns() {
    var engine = LocationEngine()
    engine.set(.init(headingFilter: 10))
    engine.startUpdatingHeading()
    let courses: [Double] = [355, 2, 9, 6, 20]
    let delivered = courses.enumerated().map { index, course in engine.handle(fix(Double(index), speed: 5, course: course)).count }
    #expect(delivered == [1, 0, 1, 0, 1])  // 355→2 is 7°, 355→9 is 14°, 9→6 is 3°, 9→20 is 11°
  }

  @Test func significantChangesEveryFiveHundredMetres() {
    var engine = LocationEngine()
    engine.startMonitoringSignificantLocationChanges()
    let delivered = stride(from: 0.0, through: 1200, by: 100).enumerated().map { index, north in
      locations(engine.handle(fix(Double(index), north: north))).count
    }
    #expect(delivered == [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0])
  }
}
