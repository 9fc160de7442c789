import Foundation
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
  func gpsdsFixEpochsAreReproduced(_ capture: String) throws {
    let script = Program.fixtures.deletingLastPathComponent().appendingPathComponent("Scripts/compare-with-gpsd")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path, "--check", "--verbose", "--gpsbridge", Program.executable.path,
                         Program.fixtures.appendingPathComponent(capture).path]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(text)")
  }

  @Test func everyCaptureIsCompared() {
    #expect(Self.captures.count >= 15)
  }
}

enum GPSDDecoder {
  static let isInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsdecode")
}
