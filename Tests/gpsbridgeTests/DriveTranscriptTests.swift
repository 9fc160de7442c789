import Foundation
import GPSLocation
import NMEA
@testable import gpsbridge
import Testing

/// The demo drive against its ground truth, and against its checked-in transcript.
///
/// To re-record the transcript after an intended change:
/// `GPSBRIDGE_RECORD=1 swift test --filter DriveTranscriptTests`.
@Suite struct DriveTranscriptTests {
  static let regions: [Region] = {
    let data = try! Data(contentsOf: Program.fixtures.appendingPathComponent("drive.regions.json"))
    return try! JSONDecoder().decode([Region].self, from: data)
  }()

  struct Truth: Decodable {
    struct Crossing: Decodable {
      var region: String
      var event: String
      var timestamp: String
    }
    struct Stop: Decodable {
      var arrival: String
      var departure: String
      var seconds: Double
    }
    var initial: [String: Bool]
    var crossings: [Crossing]
    var stops: [Stop]
  }

  static let truth: Truth = {
    let data = try! Data(contentsOf: Program.fixtures.appendingPathComponent("drive.truth.json"))
    return try! JSONDecoder().decode(Truth.self, from: data)
  }()

  /// Regions and visits monitored from the start, every fix of the capture through the engine.
  static let transcript: [LocationManager.Action] = {
    var engine = LocationEngine()
    var actions: [LocationManager.Action] = []
    for region in regions { actions += engine.startMonitoring(region) }
    engine.startMonitoringVisits()
    var decoder = FixDecoder()
    decoder.append(try! Data(contentsOf: Program.fixtures.appendingPathComponent("drive.nmea")))
    decoder.finish()
    while let fix = decoder.next() { actions += engine.handle(fix) }
    return actions
  }()

  static func date(_ iso: String) -> Date {
    Date(timeIntervalSince1970: UTCTimestamp(iso)!.secondsSince1970)
  }

  @Test func transcriptMatchesTheCheckedInOne() throws {
    let url = Program.fixtures.appendingPathComponent("drive.actions.jsonl")
    let lines = Self.transcript.map(\.jsonLine)
    if ProcessInfo.processInfo.environment["GPSBRIDGE_RECORD"] != nil {
      try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
    }
    let expected = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
    #expect(lines == expected)
  }

  @Test func initialStatesAreDeterminedByTheFirstFix() {
    let determined = Self.transcript.compactMap { action -> (String, RegionState)? in
      if case .didDetermineState(let state, let region) = action, state != .unknown { return (region.identifier, state) }
      return nil
    }
    for (identifier, inside) in Self.truth.initial {
      #expect(determined.first { $0.0 == identifier }?.1 == (inside ? .inside : .outside), "\(identifier)")
    }
  }

  @Test func everyTrueCrossingIsReportedOnceWithinTheDwell() {
    let reported = Self.transcript.compactMap { action -> (String, String)? in
      switch action {
      case .didEnterRegion(let region): (region.identifier, "enter")
      case .didExitRegion(let region): (region.identifier, "exit")
      default: nil
      }
    }
    #expect(reported.map { "\($0.0) \($0.1)" } == Self.truth.crossings.map { "\($0.region) \($0.event)" })
  }

  @Test func everyLongStopIsAVisitWithItsArrivalAndDeparture() {
    let visits = Self.transcript.compactMap { if case .didVisit(let visit) = $0 { visit } else { nil } }
    let long = Self.truth.stops.filter { $0.seconds >= 300 }
    let arrivals = visits.filter { !$0.isDeparture }
    let departures = visits.filter(\.isDeparture)
    #expect(arrivals.count == long.count)
    // The drive ends moving away from the last stop, so every stop also has its departure.
    #expect(departures.count == long.count)
    for (visit, stop) in zip(departures, long) {
      #expect(abs(visit.arrivalDate.timeIntervalSince(Self.date(stop.arrival))) <= 1, "arrival \(stop.arrival)")
      #expect(abs(visit.departureDate.timeIntervalSince(Self.date(stop.departure))) <= 2, "departure \(stop.departure)")
    }
  }
}
