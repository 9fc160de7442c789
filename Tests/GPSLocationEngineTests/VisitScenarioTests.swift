import Foundation
import GPSLocationEngine
import NMEA
import NMEASimulation
import TestHelpers
import Testing

/// Visits from generated captures whose stays are known: arrival when the stay is recognised,
/// departure with both dates.
@Suite(.offThePool) struct VisitScenarioTests {
  static let start = UTCTimestamp(date: UTCDate(year: 2024, month: 5, day: 1), time: UTCTime(hour: 10, minute: 0, second: 0))

  /// The visits the engine reports for `legs`, each with the fix time it was reported at.
  static func visits(_ legs: [Leg], noise: Double = 2) -> [(visit: Visit, reportedAt: Date)] {
    let route = Route(start: start, latitude: 47.3, longitude: 8.5, course: 0, legs: legs)
    var engine = LocationEngine()
    engine.startMonitoringVisits()
    var decoder = FixDecoder()
    decoder.append(Simulation(route: route, profile: .ublox, seed: 3, positionNoise: noise).capture())
    decoder.finish()
    var reported: [(Visit, Date)] = []
    while let fix = decoder.next() {
      guard let location = Location(fix) else { continue }
      for action in engine.handle(fix) { if case .didVisit(let visit) = action { reported.append((visit, location.timestamp)) } }
    }
    return reported
  }

  /// Seconds from the route's start.
  static func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: start.secondsSince1970 + seconds) }

  @Test func anArrivalIsReportedWhenTheStayIsRecognisedAndTheDepartureWithBothDates() {
    let reported = Self.visits([.drive(20, speed: 10), .stop(420), .drive(60, speed: 10)])
    #expect(reported.count == 2)
    let (arrival, arrivalReported) = reported[0]
    #expect(abs(arrival.arrivalDate.timeIntervalSince(Self.at(20))) <= 1)
    #expect(arrival.departureDate == .distantFuture)
    // Recognised once it has lasted the minimum dwell (5 minutes), not at the end.
    #expect(abs(arrivalReported.timeIntervalSince(Self.at(20 + 300))) <= 1)
    let (departure, _) = reported[1]
    #expect(departure.arrivalDate == arrival.arrivalDate)
    #expect(abs(departure.departureDate.timeIntervalSince(Self.at(440))) <= 1)
  }

  @Test func aGapInFixesAtThePlaceIsPartOfTheStay() {
    // Into a building: ten minutes without a fix, out again at the same place.
    let reported = Self.visits([.drive(20, speed: 10), .stop(60), .tunnel(600, speed: 0), .stop(30), .drive(60, speed: 10)])
    #expect(reported.map(\.visit.arrivalDate.timeIntervalSince1970) == [Self.at(20), Self.at(20)].map(\.timeIntervalSince1970))
    #expect(abs((reported.last?.visit.departureDate ?? .distantPast).timeIntervalSince(Self.at(710))) <= 1)
  }

  @Test func aShortWalkWithinTheRadiusDoesNotEndTheStay() {
    // Parked, a walk of 40 m and back at a stroll, parked again: one visit throughout.
    let reported = Self.visits([
      .drive(20, speed: 10), .stop(200), .drive(30, speed: 1.3), .turn(4, speed: 1, degreesPerSecond: 45), .drive(30, speed: 1.3),
      .stop(200), .drive(60, speed: 10),
    ])
    #expect(reported.count == 2)
    #expect(reported.allSatisfy { abs($0.visit.arrivalDate.timeIntervalSince(Self.at(20))) <= 1 })
  }

  @Test func twoStaysOneHundredAndFiftyMetresApartAreTwoVisits() {
    // Driven from one to the other (a walk would count as staying until 100 m from the first).
    let reported = Self.visits([.drive(20, speed: 10), .stop(360), .drive(30, speed: 5), .stop(360), .drive(60, speed: 10)])
    let arrivals = reported.filter { $0.visit.departureDate == .distantFuture }.map(\.visit)
    let departures = reported.filter { $0.visit.departureDate != .distantFuture }.map(\.visit)
    #expect(arrivals.count == 2 && departures.count == 2)
    guard arrivals.count == 2 else { return }
    #expect(abs(arrivals[0].arrivalDate.timeIntervalSince(Self.at(20))) <= 1)
    #expect(abs(arrivals[1].arrivalDate.timeIntervalSince(Self.at(410))) <= 1)
    #expect(abs(departures[0].departureDate.timeIntervalSince(Self.at(380))) <= 1)
    let apart = LocationCoordinate2D(latitude: arrivals[0].coordinate.latitude, longitude: arrivals[0].coordinate.longitude)
      .distance(to: arrivals[1].coordinate)
    #expect(abs(apart - 150) < 10, "\(apart) m apart")
  }
}
