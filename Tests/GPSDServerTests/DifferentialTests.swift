import Foundation
import TestHelpers
import Testing

/// The same capture through a real gpsd (gpsfake) and through `GPSDServer`, read alike with
/// gpspipe: epoch by epoch the same mode, time, position, speed, track and satellites. gpsd's
/// computed fields (ep*, ecef*, vel*, climb) are its own and not compared.
@Suite(.serialized, .timeLimit(.minutes(2)), .enabled(if: FakeGPSD.isAvailable, "gpsfake is not installed (Debian: gpsd gpsd-clients)"))
struct DifferentialTests {
  struct Epoch: Equatable {
    var mode: Int
    var latitude: Double
    var longitude: Double
    var speed: Double?
    var track: Double?
    /// The PRNs of the satellites in view, from the SKY that follows the TPV.
    var satellites: Set<Int>?
  }

  /// The fullest TPV of each time, with its position, and the satellites of the next SKY.
  static func epochs(_ output: String) -> [String: Epoch] {
    var epochs: [String: Epoch] = [:]
    var lastTime: String?
    for line in output.split(whereSeparator: \.isNewline) {
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
      switch object["class"] as? String {
      case "TPV":
        guard let time = object["time"] as? String, let latitude = object["lat"] as? Double, let longitude = object["lon"] as? Double
        else { continue }
        // gpsd reports an epoch early when the receiver pauses (the GGA's position, a speed
        // of its own making, no track), then fully; a capture played in a loop repeats it.
        if epochs[time]?.track != nil, object["track"] == nil { continue }
        epochs[time] = Epoch(
          mode: object["mode"] as? Int ?? 0, latitude: latitude, longitude: longitude, speed: object["speed"] as? Double,
          track: object["track"] as? Double, satellites: epochs[time]?.satellites)
        lastTime = time
      case "SKY":
        guard let time = lastTime, let satellites = object["satellites"] as? [[String: Any]] else { continue }
        epochs[time]?.satellites = Set(satellites.compactMap { $0["PRN"] as? Int })
        lastTime = nil
      default:
        continue
      }
    }
    return epochs
  }

  /// Reads a server with gpspipe a few seconds at a time until 40 epochs are in (a busy
  /// machine may give gpsfake's gpsd its first seconds for nothing), at most five times.
  static func epochs(from port: Int, gpspipe: String) async throws -> [String: Epoch] {
    var epochs: [String: Epoch] = [:]
    for _ in 0..<5 where epochs.count < 40 {
      let output = try await runProgram(gpspipe, ["-w", "-x", "6", "127.0.0.1:\(port)"], timeout: 30).output
      epochs.merge(Self.epochs(output)) { earlier, later in later.track != nil || earlier.track == nil ? later : earlier }
    }
    return epochs
  }

  @Test(arguments: ["ublox-m8-1hz.nmea", "sirf-nmea22-1hz.nmea"])
  func aRealGPSDAndTheServerAgreeEpochByEpoch(_ fixture: String) async throws {
    let path = Served.fixtures.appendingPathComponent(fixture).path
    let gpsd = try FakeGPSD(capture: path, cycle: 0.002)
    defer { gpsd.stop() }
    let gpspipe = Installed.path("gpspipe")!
    let theirs = try await Self.epochs(from: gpsd.port, gpspipe: gpspipe)
    let served = try Served(fixture, speed: 20)
    let ours = try await Self.epochs(from: served.port, gpspipe: gpspipe)
    let common = Set(theirs.keys).intersection(ours.keys)
    #expect(common.count >= 30, "\(common.count) epochs in common (gpsd \(theirs.count), gpsbridge \(ours.count))")
    var differences: [String] = []
    for time in common.sorted() {
      let (gpsd, served) = (theirs[time]!, ours[time]!)
      var problems: [String] = []
      if gpsd.mode != served.mode { problems.append("mode \(gpsd.mode) vs \(served.mode)") }
      if abs(gpsd.latitude - served.latitude) > 1e-9 || abs(gpsd.longitude - served.longitude) > 1e-9 { problems.append("position") }
      if let a = gpsd.speed, let b = served.speed, abs(a - b) > 0.002 { problems.append("speed \(a) vs \(b)") }
      if let a = gpsd.track, let b = served.track, abs(a - b) > 0.001 { problems.append("track \(a) vs \(b)") }
      if let a = gpsd.satellites, let b = served.satellites, a != b { problems.append("satellites \(a.sorted()) vs \(b.sorted())") }
      if !problems.isEmpty { differences.append("\(time): " + problems.joined(separator: ", ")) }
    }
    #expect(differences.isEmpty, "\(differences.count) epochs differ: \(differences.prefix(5))")
  }
}
