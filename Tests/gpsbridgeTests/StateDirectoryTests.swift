import Foundation
import GPSLocation
import NMEASimulation
import TestHelpers
import Testing

/// `gpsbridge --state-dir`: the regions' states kept across runs, through the built program.
@Suite(.timeLimit(.minutes(3))) struct StateDirectoryTests {
  /// The demo drive's places as a regions file.
  static func regionsFile(_ directory: URL) throws -> String {
    let regions = Route.demoPlaces.map(Region.init)
    let path = directory.appendingPathComponent("regions.json").path
    try Data(try JSONCoding.encode(regions).utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  static func events(_ output: String) -> [[String: Any]] {
    output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
      .filter { $0["id"] != nil }
  }

  @Test func aSecondRunSaysOnlyWhatChangedWithTimesAndIDsThatGoOn() async throws {
    let directory = scratchDirectory("state-dir-run")
    let regions = try Self.regionsFile(directory)
    let capture = directory.appendingPathComponent("drive.nmea").path
    try Data(Simulation.demoDrive.capture()).write(to: URL(fileURLWithPath: capture))
    let state = directory.appendingPathComponent("state").path
    let arguments = ["--replay", capture, "--speed", "max", "--json", "--regions", regions, "--state-dir", state]

    let first = try await Program.run(arguments)
    #expect(first.status == 0, "\(first.error)")
    let said = Self.events(first.output)
    // Every region event has the fix's time and an id; the ids go up from 1.
    #expect(!said.isEmpty && said.allSatisfy { ($0["time"] as? String)?.hasPrefix("2024-05-01T08:0") == true })
    let ids = said.compactMap { $0["id"] as? Int }
    #expect(ids.first == 1 && ids == ids.sorted())
    // The capture's end is the last line: the monitor's last events come before it.
    #expect(first.output.split(separator: "\n").last?.contains("endOfCapture") == true)
    let entries = said.filter { $0["event"] as? String == "didEnterRegion" }.compactMap {
      ($0["region"] as? [String: Any])?["identifier"] as? String
    }
    #expect(entries == ["bridge", "shop"], "\(entries)")

    // Run again: every region was left outside, and nothing is said of them until one is
    // crossed (no first decisions again). The replay starts at the depot again: the car is
    // inside there, which the state kept does not know; said once, as found at the start, with
    // the next id.
    let second = try await Program.run(arguments)
    let again = Self.events(second.output)
    let entry = try #require(again.first)
    #expect(entry["event"] as? String == "didEnterRegion" && (entry["region"] as? [String: Any])?["identifier"] as? String == "depot")
    #expect(entry["detectedAtStart"] as? Bool == true)
    #expect((entry["id"] as? Int ?? 0) == (ids.last ?? 0) + 1, "\(entry)")
    let crossings = Set(
      again.filter { ["didEnterRegion", "didExitRegion"].contains($0["event"] as? String) }.compactMap { $0["id"] as? Int })
    #expect(Set(again.compactMap { $0["id"] as? Int }) == crossings, "a state said again without a crossing")
    #expect(FileManager.default.fileExists(atPath: state + "/regions.monitor.json"))
  }

  @Test func stateDirNeedsRegionsAndAWritableDirectory() async throws {
    let capture = Program.fixtures.appendingPathComponent("sirf-nmea22-1hz.nmea").path
    let alone = try await Program.run(["--replay", capture, "--state-dir", "/tmp"])
    #expect(alone.status == 64 || alone.status == 2 || alone.status == 1)
    #expect(
      alone.error.contains("--state-dir keeps the states of regions and visits: give --regions FILE, --region or --visits too."),
      "\(alone.error)")
    // The kept regions and visits are dated by the manager's updates: none may be held back.
    let filtered = try await Program.run(["--replay", capture, "--region", "a,47,8,100", "--state-dir", "/tmp", "--distance-filter", "50"])
    #expect(filtered.error.contains("--state-dir and --distance-filter do not go together yet"), "\(filtered.error)")
    let unwritable = try await Program.run(["--replay", capture, "--region", "a,47,8,100", "--state-dir", "/proc/gpsbridge"])
    #expect(unwritable.status == 1)
    #expect(unwritable.error.contains("Cannot make the directory /proc/gpsbridge for the monitor's state"), "\(unwritable.error)")
  }
  /// With `--visits` (and regions, or none), a stay is kept too: a run that ends during a stay has said its arrival;
  /// the next run, starting elsewhere, says its departure (dated the last fix of the stay),
  /// with the next id, and not the arrival again.
  @Test(arguments: [true, false]) func aStayAcrossTwoRunsIsOneArrivalAndOneDeparture(withARegion: Bool) async throws {
    let directory = scratchDirectory("state-dir-visit-\(withARegion)")
    let state = directory.appendingPathComponent("state").path
    func capture(_ name: String, from seconds: Double, latitude: Double, legs: [Leg]) throws -> String {
      let start = UTCTimestamp(
        date: UTCDate(year: 2024, month: 5, day: 1), time: UTCTime(hour: 8, minute: 0, second: 0))
      let route = Route(
        start: UTCTimestamp(nanosecondsSince1970: start.nanosecondsSince1970 + Int64(seconds * 1e9)), latitude: latitude,
        longitude: 8.54, legs: legs)
      let path = directory.appendingPathComponent(name).path
      try Data(Simulation(route: route).capture()).write(to: URL(fileURLWithPath: path))
      return path
    }
    let staying = try capture("staying.nmea", from: 0, latitude: 47.37, legs: [.drive(20, speed: 10), .stop(120)])
    let elsewhere = try capture("elsewhere.nmea", from: 600, latitude: 47.40, legs: [.drive(30, speed: 10)])
    let arguments =
      ["--speed", "max", "--json", "--visits", "--visit-dwell", "20", "--state-dir", state]
      + (withARegion ? ["--region", "far,46,7,100"] : [])

    let first = try await Program.run(["--replay", staying] + arguments)
    #expect(first.status == 0, "\(first.error)")
    let arrival = try #require(Self.events(first.output).first { $0["event"] as? String == "didVisit" }, "\(first.output)")
    let stay = try #require(arrival["visit"] as? [String: Any])
    #expect(stay["departureDate"] == nil && (arrival["time"] as? String)?.hasPrefix("2024-05-01T08:0") == true)

    let second = try await Program.run(["--replay", elsewhere] + arguments)
    #expect(second.status == 0, "\(second.error)")
    let visits = Self.events(second.output).filter { $0["event"] as? String == "didVisit" }
    #expect(visits.count == 1, "\(second.output)")
    let departure = try #require(visits.first?["visit"] as? [String: Any])
    #expect(departure["arrivalDate"] as? String == stay["arrivalDate"] as? String, "\(departure)")
    #expect(departure["departureDate"] as? String == "2024-05-01T08:02:19.000Z", "\(departure)")
    #expect((visits.first?["id"] as? Int ?? 0) > (arrival["id"] as? Int ?? .max))
  }
}
