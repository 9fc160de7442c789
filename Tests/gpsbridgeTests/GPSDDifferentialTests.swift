import Foundation
import NMEASimulation
import TestHelpers
import Testing

/// Every capture in `Fixtures/` through gpsd's own decoder and through gpsbridge: each of
/// gpsd's fix epochs is reproduced, or differs only as `Fixtures/gpsd-differences.json` explains.
@Suite(.enabled(if: GPSDDecoder.isInstalled, "gpsdecode is not installed (Debian: gpsd-clients); skipped"))
struct GPSDDifferentialTests {
  static let captures: [String] = {
    let fixtures = Program.fixtures
    return ["", "receivers"].flatMap { folder -> [String] in
      let directory = folder.isEmpty ? fixtures : fixtures.appendingPathComponent(folder)
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
      return names.filter { $0.hasSuffix(".nmea") }.sorted().map { folder.isEmpty ? $0 : folder + "/" + $0 }
    }
  }()

  @Test(arguments: captures)
  func gpsdsFixEpochsAreReproduced(_ capture: String) async throws {
    try await Self.compare(Program.fixtures.appendingPathComponent(capture).path)
  }

  /// Each profile of the simulator, with noise, through both decoders.
  @Test(arguments: ReceiverProfile.all.map(\.name))
  func gpsdsFixEpochsOfEverySimulatedReceiverAreReproduced(_ profile: String) async throws {
    // Named `simulated-PROFILE` in a folder of its own: the allow-list knows captures by name.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpsbridge-differential-\(profile)-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("simulated-\(profile).nmea").path
    let result = try await Program.run(["simulate", "--profile", profile, "--duration", "240", "--noise", "2", "--output", path])
    #expect(result.status == 0, "\(result.error)")
    try await Self.compare(path)
  }

  @Test func everyCaptureIsCompared() {
    #expect(Self.captures.count >= 14)
  }

  /// Runs the script on a thread of its own (through `runProgram`): it takes seconds, and a
  /// test blocking one of the pool's two threads for that long starves every other test.
  static func compare(_ capture: String) async throws {
    let script = Program.fixtures.deletingLastPathComponent().appendingPathComponent("Scripts/compare-with-gpsd")
    let result = try await runProgram(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["python3", script.path, "--check", "--verbose", "--gpsbridge", Program.executable.path, capture],
      timeout: 120)
    #expect(result.status == 0, "\(result.output)\(result.error)")
  }
}

enum GPSDDecoder {
  static let isInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsdecode")
}
