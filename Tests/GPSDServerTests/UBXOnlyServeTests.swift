import Foundation
import GPSDServer
import NMEASimulation
import TestHelpers
import Testing

/// A u-blox left in UBX-only mode is served as it is in NMEA mode: the same route played both
/// ways to `serve`, and every TPV and SKY of one has its twin in the other, within the
/// precision of each (NMEA's minutes to five decimals, UBX's 1e-7 degrees).
@Suite(.timeLimit(.minutes(2))) struct UBXOnlyServeTests {
  static let simulation = Simulation(route: Route.demoDrive.lasting(12), profile: .ublox)

  /// What a watcher is served while `bursts` (an epoch each) are played to a serial receiver.
  static func served(_ bursts: [[UInt8]]) async throws -> [[String: Any]] {
    try await IntegrityWatchTests.served(bursts, watch: #"?WATCH={"enable":true,"json":true};"#).compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
  }

  static func byTime(_ reports: [[String: Any]], _ kind: String) -> [String: [String: Any]] {
    var found: [String: [String: Any]] = [:]
    for report in reports where report["class"] as? String == kind {
      if let time = report["time"] as? String { found[time] = report }
    }
    return found
  }

  static func satellites(_ sky: [String: Any]) -> Set<String> {
    Set(
      (sky["satellites"] as? [[String: Any]] ?? []).map { satellite in
        ["PRN", "el", "az", "ss", "used", "gnssid", "svid"].map { "\($0)=\(satellite[$0].map { "\($0)" } ?? "-")" }.joined(separator: " ")
      })
  }

  @Test func aUBXOnlyReceiverIsServedAsItIsInNMEAMode() async throws {
    let epochs = Array(Self.simulation.epochs())
    let nmea = try await Self.served(epochs.map(\.bytes))
    let ubx = try await Self.served(epochs.map { Self.simulation.ubx($0) })
    let nmeaFixes = Self.byTime(nmea, "TPV"), ubxFixes = Self.byTime(ubx, "TPV")
    let times = Set(nmeaFixes.keys).intersection(ubxFixes.keys).sorted()
    #expect(times.count >= epochs.count - 3, "NMEA \(nmeaFixes.keys.sorted()), UBX \(ubxFixes.keys.sorted())")
    for time in times {
      let a = nmeaFixes[time]!, b = ubxFixes[time]!
      #expect(a["mode"] as? Int == b["mode"] as? Int, "\(time)")
      // Standing still, the NMEA receiver leaves RMC's course empty; NAV-PVT always has its
      // heading of motion (the last one), and gpsd serves it too.
      let keys =
        [("lat", 3e-7), ("lon", 3e-7), ("altMSL", 0.06), ("altHAE", 0.06), ("speed", 0.01)] + (a["track"] == nil ? [] : [("track", 0.05)])
      for (key, tolerance) in keys {
        let x = a[key] as? Double, y = b[key] as? Double
        #expect(
          x != nil && y != nil && abs(x! - y!) <= tolerance, "\(time) \(key): NMEA \(String(describing: x)), UBX \(String(describing: y))")
      }
    }
    let nmeaSkies = Self.byTime(nmea, "SKY"), ubxSkies = Self.byTime(ubx, "SKY")
    let skyTimes = Set(nmeaSkies.keys).intersection(ubxSkies.keys).sorted()
    #expect(skyTimes.count >= epochs.count - 3)
    for time in skyTimes {
      let a = nmeaSkies[time]!, b = ubxSkies[time]!
      #expect(a["nSat"] as? Int == b["nSat"] as? Int && a["uSat"] as? Int == b["uSat"] as? Int, "\(time)")
      #expect(
        Self.satellites(a) == Self.satellites(b),
        "\(time): NMEA only \(Self.satellites(a).subtracting(Self.satellites(b))), UBX only \(Self.satellites(b).subtracting(Self.satellites(a)))"
      )
      #expect((a["hdop"] as? Double).map { abs($0 - ((b["hdop"] as? Double) ?? 0)) < 0.011 } == true, "\(time)")
    }
  }
}
