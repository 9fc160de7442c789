import Foundation
import GPSLocation
import NMEA
import NMEASimulation
import Testing

@testable import gpsbridge

/// The demo drive against the truth its route holds, and against its checked-in transcript.
///
/// To re-record the transcript after an intended change:
/// `GPSBRIDGE_RECORD=1 swift test --filter DemoDriveTests`.
@Suite struct DemoDriveTests {
  static let regions = Route.demoPlaces.map(Region.init)
  static let truth = Array(Route.demoDrive.states(rate: 1))
  /// Stays this long are visits in this test, as in the command line's demo.
  static var configuration: LocationEngine.Configuration {
    var configuration = LocationEngine.Configuration()
    configuration.visitMinimumDwell = demoVisitDwell
    return configuration
  }

  /// Regions and visits monitored from the start, every fix of the capture through the engine.
  static let transcript: [LocationManager.Action] = {
    var engine = LocationEngine(configuration: configuration)
    var actions: [LocationManager.Action] = []
    for region in regions { actions += engine.startMonitoring(region) }
    engine.startMonitoringVisits()
    var decoder = FixDecoder()
    decoder.append(Simulation.demoDrive.capture())
    decoder.finish()
    while let fix = decoder.next() { actions += engine.handle(fix) }
    return actions
  }()

  /// Whether the route is truly inside `region` at `state`, by the haversine distance.
  static func isInside(_ state: RouteState, _ region: Region) -> Bool {
    let radians = Double.pi / 180
    let dLatitude = (state.latitude - region.center.latitude) * radians
    let dLongitude = (state.longitude - region.center.longitude) * radians
    let a =
      pow(sin(dLatitude / 2), 2)
      + cos(state.latitude * radians) * cos(region.center.latitude * radians) * pow(sin(dLongitude / 2), 2)
    return 2 * 6_371_008.8 * asin(min(1, a.squareRoot())) <= region.radius
  }

  @Test func theRegionsFileInFixturesIsTheDemosPlaces() throws {
    let url = Program.fixtures.appendingPathComponent("demo.regions.json")
    if ProcessInfo.processInfo.environment["GPSBRIDGE_RECORD"] != nil {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      try (encoder.encode(Self.regions) + Data("\n".utf8)).write(to: url)
    }
    let data = try Data(contentsOf: url)
    let file = try JSONDecoder().decode([Region].self, from: data)
    #expect(file.map(\.identifier) == Self.regions.map(\.identifier))
    for (written, place) in zip(file, Self.regions) {
      #expect(
        abs(written.center.latitude - place.center.latitude) < 1e-6 && abs(written.center.longitude - place.center.longitude) < 1e-6,
        "\(place.identifier)")
      #expect(written.radius == place.radius)
    }
  }

  @Test func transcriptMatchesTheCheckedInOne() throws {
    let url = Program.fixtures.appendingPathComponent("demo.actions.jsonl")
    let lines = Self.transcript.map(\.jsonLine)
    if ProcessInfo.processInfo.environment["GPSBRIDGE_RECORD"] != nil {
      try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
    }
    let expected = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
    #expect(lines == expected)
  }

  @Test func initialStatesAreDeterminedByTheFirstFix() throws {
    let first = try #require(Self.truth.first)
    let determined = Self.transcript.compactMap { action -> (String, RegionState)? in
      if case .didDetermineState(let state, let region) = action, state != .unknown { return (region.identifier, state) }
      return nil
    }
    for region in Self.regions {
      let expected: RegionState = Self.isInside(first, region) ? .inside : .outside
      #expect(determined.first { $0.0 == region.identifier }?.1 == expected, "\(region.identifier)")
    }
  }

  @Test func everyTrueCrossingIsReportedOnce() {
    var crossings: [String] = []
    for region in Self.regions {
      var wasInside: Bool?
      for state in Self.truth where state.hasFix {
        let inside = Self.isInside(state, region)
        if let wasInside, inside != wasInside { crossings.append("\(region.identifier) \(inside ? "enter" : "exit")") }
        wasInside = inside
      }
    }
    let reported = Self.transcript.compactMap { action -> String? in
      switch action {
      case .didEnterRegion(let region): "\(region.identifier) enter"
      case .didExitRegion(let region): "\(region.identifier) exit"
      default: nil
      }
    }
    #expect(reported.sorted() == crossings.sorted())
  }

  @Test func everyLongStopIsAVisitWithItsArrivalAndDeparture() {
    // The route's stops, from its legs: when each began and ended.
    var stops: [(arrival: Date, departure: Date)] = []
    var elapsed = 0.0
    let start = Date(timeIntervalSince1970: Route.demoDrive.start.secondsSince1970)
    for leg in Route.demoDrive.legs {
      if leg.speed == 0, leg.hoverRadius == 0, leg.seconds >= Self.configuration.visitMinimumDwell {
        stops.append((start + elapsed, start + elapsed + leg.seconds - 1))
      }
      elapsed += leg.seconds
    }
    let visits = Self.transcript.compactMap { if case .didVisit(let visit) = $0 { visit } else { nil } }
    let departures = visits.filter(\.isDeparture)
    #expect(visits.filter { !$0.isDeparture }.count == stops.count)
    // The drive ends moving away from the last stop, so every stop also has its departure.
    #expect(departures.count == stops.count)
    for (visit, stop) in zip(departures, stops) {
      #expect(abs(visit.arrivalDate.timeIntervalSince(stop.arrival)) <= 1, "arrival \(stop.arrival)")
      #expect(abs(visit.departureDate.timeIntervalSince(stop.departure)) <= 2, "departure \(stop.departure)")
    }
  }
}
