import Corrections
import Foundation
import GPSLocation
import TestHelpers
import Testing

/// The README's corrections example for a program of one's own, line for line (but for the
/// device and the caster, which the test passes in): run against a simulated RTK rover and
/// str2str, it ends by itself once the fix is RTK fixed.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ReadmeLibraryCorrectionsTests {
  static func example(device: String, caster: String) async {
    let receiver = Receiver(SerialSource(path: device))
    let manager = LocationManager.receiver(receiver)
    let address = NTRIPAddress(parsing: caster)!
    let corrections = NTRIPClient(NTRIPClient.Configuration(address: address), receiver: receiver)
    let streaming = Task { try await corrections.run() }  // until cancelled; throws when refused
    await manager.startUpdatingLocation()
    for await case .didUpdateLocations(let locations) in manager.delegate() {
      print(locations.last?.fixQuality ?? .invalid, corrections.health.summary)
      if locations.last?.fixQuality == .rtkFixed { break }
    }
    streaming.cancel()
  }

  @Test func theExampleIsTheReadmes() throws {
    let here = URL(fileURLWithPath: #filePath)
    let readme = try Documentation.text()
    let block = try #require(
      readme.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
        .first { $0.contains("NTRIPClient(") })
    let body = block.split(separator: "\n").drop { !$0.hasPrefix("let receiver") }
      .map { $0.replacingOccurrences(of: #""/dev/ttyACM0""#, with: "device") }
      .map { $0.replacingOccurrences(of: #""ntrip://caster.example.org/BASE1""#, with: "caster") }
    let source = try String(contentsOf: here, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    let start = try #require(source.firstIndex { $0.contains("static func example(") })
    let lines = source[(start + 1)...].prefix { $0 != "  }" }.map { $0.dropFirst(4) }.map(String.init)
    #expect(lines == body)
    #expect(block.hasPrefix("import Corrections\nimport GPSLocation\n"))
  }

  @Test(.enabled(if: Caster.str2str != nil, "str2str is not installed (Debian: rtklib)"))
  func theExampleEndsAtRTKFixed() async throws {
    let directory = scratchDirectory("caster-library-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let caster = Caster()
    try caster.start()
    defer { caster.stop() }
    let link = directory.appendingPathComponent("rover0").path
    let rover = try await startRover(at: link, in: directory)
    defer { rover.stop() }
    await Self.example(device: link, caster: "ntrip://user:secret@127.0.0.1:\(caster.port)/BASE1")
  }
}
