import FoundationEssentials
import GPSLocationEngine
import NMEA
import Testing

@Suite struct VisitDetectorTests {
  func visits(_ actions: [LocationManager.Action]) -> [Visit] {
    actions.compactMap { if case .didVisit(let visit) = $0 { visit } else { nil } }
  }

  @Test func stayingFiveMinutesIsAnArrivalAndLeavingADeparture() {
    var engine = LocationEngine()
    engine.startMonitoringVisits()
    var reported: [Visit] = []
    for second in 0...400 { reported += visits(engine.handle(fix(Double(second), north: Double(second % 7)))) }
    #expect(reported.count == 1)
    #expect(reported.first?.arrivalDate == date(0) && reported.first?.departureDate == .distantFuture)
    reported += visits(engine.handle(fix(401, north: 500)))
    #expect(reported.count == 2)
    #expect(reported.last?.arrivalDate == date(0) && reported.last?.departureDate == date(400))
  }

  @Test func aShortStopIsNoVisit() {
    var engine = LocationEngine()
    engine.startMonitoringVisits()
    var actions: [LocationManager.Action] = []
    for second in 0...120 { actions += engine.handle(fix(Double(second))) }
    actions += engine.handle(fix(121, north: 400))
    #expect(visits(actions).isEmpty)
  }

  @Test func aGapSpentInTheSamePlaceCountsAsTheStay() {
    var engine = LocationEngine()
    engine.startMonitoringVisits()
    var actions = engine.handle(fix(0))
    actions += engine.handle(fix(60))
    // Indoors for 20 minutes, out again at the same spot.
    actions += engine.handle(fix(1260, north: 10))
    #expect(visits(actions).map(\.arrivalDate) == [date(0)])
  }

  @Test func aGapLongerThanTheLimitEndsTheStayAtItsLastFix() {
    var engine = LocationEngine()
    engine.startMonitoringVisits()
    var actions: [LocationManager.Action] = []
    for second in stride(from: 0, through: 600, by: 10) { actions += engine.handle(fix(Double(second))) }
    actions += engine.handle(fix(600 + 7200))
    #expect(visits(actions).map(\.departureDate) == [.distantFuture, date(600)])
  }
  /// A stay kept across a restart: its arrival is not reported again; the next fix, if near
  /// and within the gap, goes on with it (the departure keeps the arrival's date), and if
  /// elsewhere, ends it at the last fix kept.
  @Test func aStayResumedAfterARestartGoesOnOrEndsAtItsLastKeptFix() throws {
    var before = LocationEngine()
    before.startMonitoringVisits()
    var arrival: Visit?
    for second in 0...400 { arrival = visits(before.handle(fix(Double(second), north: Double(second % 7)))).first ?? arrival }
    let kept = VisitInProgress(arrival: try #require(arrival), lastSeen: date(400), fixes: 401)

    // Back 10 minutes later at the same place: nothing new until the departure.
    var stayed = LocationEngine()
    stayed.startMonitoringVisits(resuming: kept)
    var reported: [Visit] = []
    for second in 1000...1100 { reported += visits(stayed.handle(fix(Double(second), north: 3))) }
    #expect(reported.isEmpty)
    reported += visits(stayed.handle(fix(1101, north: 500)))
    #expect(reported.map(\.arrivalDate) == [date(0)] && reported.map(\.departureDate) == [date(1100)])

    // Back elsewhere: the departure at once, dated the last fix kept.
    var left = LocationEngine()
    left.startMonitoringVisits(resuming: kept)
    let departure = visits(left.handle(fix(1000, north: 900)))
    #expect(departure.map(\.arrivalDate) == [date(0)] && departure.map(\.departureDate) == [date(400)])
  }
}
