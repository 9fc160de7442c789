import Foundation
import Framing
import NMEA
import NMEASimulation
import Testing

@testable import Transports

/// gpsbridge's own evidence of spoofing, both ways: each attacked simulation is caught within
/// 5 s of receiver time, and clean input (the demo drive, an hour's drive, the project's
/// captures, and, on demand, gpsd's regression logs of real receivers) gives no alarm.
@Suite struct SignalHeuristicsTests {
  /// The evidence after each fix of `stream`, with its fix's time (seconds since midnight).
  static func judged(_ stream: [UInt8]) -> [(second: Double, found: SignalIntegrity.Source?)] {
    var decoder = FixDecoder()
    decoder.append(stream)
    decoder.finish()
    var heuristics = SignalHeuristics()
    var found: [(Double, SignalIntegrity.Source?)] = []
    while let fix = decoder.next() { found.append((Double(fix.time.nanosecondsSinceMidnight) / 1e9, heuristics.take(fix))) }
    return found
  }

  /// Seconds from the attack's start (the route's `start` s in) to the first alarm.
  static func delay(_ profile: ReceiverProfile, start: Double) -> Double? {
    let simulation = Simulation(route: Route.demoDrive.lasting(start + 30), profile: profile, attack: Attack(.spoofing, at: start))
    let judged = Self.judged(simulation.capture())
    guard let first = judged.first?.second, let alarm = judged.first(where: { $0.found != nil }) else { return nil }
    return alarm.second - first - start
  }

  @Test(arguments: [ReceiverProfile.sirf, .mtk, .marine, .rtk])
  func aSpoofedReceiverThatSaysNothingIsCaughtWithinFiveSeconds(profile: ReceiverProfile) throws {
    let delay = try #require(Self.delay(profile, start: 40), "no alarm")
    #expect(delay >= 0 && delay <= 5, "caught \(delay) s after the attack began")
  }

  @Test func signalsAllAlikeAreEvidenceAndARealSkyIsNot() throws {
    // The spoofed sky alone: strengths of 45 and 46 dB-Hz, the track true.
    var fixes = (0..<5).map { second -> Fix in
      var fix = Fix(time: UTCTime(nanosecondsSinceMidnight: Int64(second) * 1_000_000_000))
      fix.satellites = (1...8).map { Fix.Satellite(constellation: .gps, number: $0, snr: 45 + $0 % 2, isUsed: true) }
      return fix
    }
    var heuristics = SignalHeuristics()
    #expect(fixes.map { heuristics.take($0) } == [nil, nil, .alikeSignals, .alikeSignals, .alikeSignals])
    // One satellite weaker by 2 dB-Hz: a real sky.
    fixes[4].satellites[3].snr = 43
    fixes[4].time = UTCTime(nanosecondsSinceMidnight: 5_000_000_000)
    #expect(heuristics.take(fixes[4]) == nil)
    // Five satellites are too few to say.
    var few = SignalHeuristics()
    fixes[0].satellites.removeLast(3)
    #expect((0..<5).map { _ in few.take(fixes[0]) }.allSatisfy { $0 == nil })
  }

  @Test func cleanDrivesGiveNoAlarm() {
    for profile in [ReceiverProfile.ublox, .sirf, .mtk, .marine, .rtk, .ggaOnly] {
      let judged = Self.judged(Simulation(route: Route.demoDrive.lasting(3600), profile: profile, positionNoise: 2).capture())
      let alarms = judged.filter { $0.found != nil }
      #expect(
        alarms.isEmpty,
        "\(profile.name): \(alarms.count) fixes under alarm, at \(alarms.prefix(8).map { "\($0.second - judged[0].second) s \($0.found!.rawValue)" })"
      )
    }
  }

  @Test func theProjectsCapturesGiveNoAlarm() throws {
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures")
    let captures = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).filter { $0.hasSuffix(".nmea") }
    #expect(!captures.isEmpty)
    for name in captures {
      let bytes = try [UInt8](Data(contentsOf: fixtures.appendingPathComponent(name)))
      let alarms = Self.judged(bytes).filter { $0.found != nil }
      #expect(alarms.isEmpty, "\(name): \(alarms.count) fixes under alarm, first at \(alarms.first.map { "\($0.second) s" } ?? "-")")
    }
  }

  /// gpsd's regression logs, read where `GPSBRIDGE_GPSD_LOGS` names their directory (a checkout's
  /// `test/daemon`; they are not the project's to keep): prints each log's alarms.
  @Test(.enabled(if: ProcessInfo.processInfo.environment["GPSBRIDGE_GPSD_LOGS"] != nil, "set GPSBRIDGE_GPSD_LOGS to gpsd's test/daemon"))
  func gpsdsRealReceiversGiveNoAlarm() throws {
    let directory = ProcessInfo.processInfo.environment["GPSBRIDGE_GPSD_LOGS"]!
    var fixes = 0
    var alarmed: [String] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: directory).filter({ $0.hasSuffix(".log") }).sorted() {
      let judged = Self.judged(try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))))
      fixes += judged.count
      var alarms = 0
      var last: SignalIntegrity.Source?
      for (_, found) in judged {
        if found != nil, found != last { alarms += 1 }
        last = found
      }
      if alarms > 0 { alarmed.append("\(name): \(alarms) (\(Set(judged.compactMap(\.found)).map(\.rawValue).sorted()))") }
    }
    print("gpsd's logs: \(fixes) fixes; alarms in \(alarmed.count) logs: \(alarmed)")
    #expect(alarmed.isEmpty, "\(alarmed)")
  }
}
