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
}
