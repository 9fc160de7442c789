import Foundation
import GPSLocation
import TestHelpers
import Testing

@testable import gpsbridge

/// A bad regions file names the region, the key and what was expected, through the program,
/// with the same words `--region` and the library use for the same problem.
@Suite struct RegionsFileTests {
  static let capture = Program.fixtures.appendingPathComponent("sirf-nmea22-1hz.nmea").path
  static let home = #"{"identifier": "home", "center": {"latitude": 47.3, "longitude": 8.5}, "radius": 100}"#

  /// A regions file that cannot be read says why: missing, a directory, or not this user's to read.
  @Test func anUnreadableRegionsFileSaysWhy() async throws {
    let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-regions-\(UUID().uuidString).json").path
    let gone = try await Program.run(["--replay", Self.capture, "--speed", "max", "--regions", missing, "--json"])
    #expect(gone.status == 1)
    #expect(gone.error.hasPrefix("Error: Cannot read the regions file \(missing): it does not exist"), "\(gone.error)")
    let folder = FileManager.default.temporaryDirectory.path
    let directory = try await Program.run(["--replay", Self.capture, "--speed", "max", "--regions", folder, "--json"])
    #expect(directory.error.hasPrefix("Error: Cannot read the regions file \(folder): it is a directory"), "\(directory.error)")
  }

  @Test(arguments: [
    ("[\(home), {\"identifier\": \"shop\", \"center\": {\"latitude\": 47.3, \"longitude\": 8.5}}]", "region 2 ('shop') has no \"radius\""),
    (
      #"[{"identifier": "home", "center": {"latitude": "north", "longitude": 8.5}, "radius": 100}]"#,
      "region 1 ('home'), \"center.latitude\" should be a number"
    ),
    (#"[{"center": {"latitude": 47.3, "longitude": 8.5}, "radius": 100}]"#, "region 1 has no \"identifier\""),
    (home, "the file should be an array of regions"),
    ("[{", "not valid JSON"),
    (
      #"[{"identifier": "far", "center": {"latitude": 95, "longitude": 8.5}, "radius": 100}]"#,
      "region 1 ('far'): the centre (95.0, 8.5) is not on Earth: latitude must be within ±90 and longitude within ±180."
    ),
    (
      #"[{"identifier": "dot", "center": {"latitude": 47, "longitude": 8.5}, "radius": 0}]"#,
      "region 1 ('dot'): the radius 0.0 m is not a positive number of metres."
    ),
  ])
  func aBadRegionsFileSaysWhereAndWhat(contents: String, message: String) async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("regions-\(UUID().uuidString).json")
    try Data(contents.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let result = try await Program.run(["--replay", Self.capture, "--speed", "max", "--regions", file.path, "--json"])
    #expect(result.status == 1)
    #expect(result.error.hasPrefix("Error: \(file.path): \(message)"), "\(result.error)")
    #expect(!result.error.contains("DecodingError") && !result.error.contains("keyNotFound"))
  }

  @Test func aRegionsFileNeedsOnlyIdentifierCentreAndRadius() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("regions-\(getpid()).json")
    try Data(#"[{"identifier": "home", "center": {"latitude": 47.3769, "longitude": 8.5417}, "radius": 100}]"#.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let regions = try readRegions(file.path)
    #expect(regions == [Region(identifier: "home", center: LocationCoordinate2D(latitude: 47.3769, longitude: 8.5417), radius: 100)])
  }

  @Test func aBadRegionsFileSaysWhatShapeItShouldHave() async throws {
    let result = try await Program.run(["--replay", "-", "--regions", "/nonexistent.json"], input: Data())
    #expect(result.status == 1 && result.error.hasPrefix("Error: Cannot read the regions file /nonexistent.json: it does not exist"))
  }
}
