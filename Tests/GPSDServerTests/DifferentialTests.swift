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
    /// Of those, the used ones with their azimuth and elevation: what the DOPs are made of.
    var used: Set<String>?
    /// gpsd's computed figures, by their JSON names: the TPV's error estimates and rates, the
    /// SKY's DOPs.
    var computed: [String: Double] = [:]
  }

  /// The computed fields compared, with gpsd's printed precision (half its last digit).
  static let computedFields: [(name: String, precision: Double)] = [
    ("ept", 0.0005), ("epx", 0.0005), ("epy", 0.0005), ("epv", 0.0005), ("eph", 0.0005), ("sep", 0.0005), ("eps", 0.005),
    ("epd", 0.00005), ("epc", 0.005), ("climb", 0.0005), ("magtrack", 0.00005), ("sky.xdop", 0.005), ("sky.ydop", 0.005),
    ("sky.tdop", 0.005), ("sky.gdop", 0.005),
  ]

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
        var computed = epochs[time]?.computed ?? [:]
        for (name, _) in computedFields where !name.hasPrefix("sky.") { computed[name] = object[name] as? Double }
        epochs[time] = Epoch(
          mode: object["mode"] as? Int ?? 0, latitude: latitude, longitude: longitude, speed: object["speed"] as? Double,
          track: object["track"] as? Double, satellites: epochs[time]?.satellites, computed: computed)
        lastTime = time
      case "SKY":
        guard let time = lastTime, let satellites = object["satellites"] as? [[String: Any]] else { continue }
        epochs[time]?.satellites = Set(satellites.compactMap { $0["PRN"] as? Int })
        epochs[time]?.used = Set(
          satellites.filter { $0["used"] as? Bool == true }.map { "\($0["PRN"] ?? "") \($0["az"] ?? "") \($0["el"] ?? "")" })
        for (name, _) in computedFields where name.hasPrefix("sky.") {
          epochs[time]?.computed[name] = object[String(name.dropFirst(4))] as? Double
        }
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
    let gpspipe = Installed.path("gpspipe")!
    // gpsd's view, from a gpsfake played at 500 sentences a second. On a busy machine gpsd
    // has now and then given nothing at all for half a minute: a gpsd that gave nothing is no
    // reference, so a fresh one is started (once) rather than the comparison failed or skipped.
    var theirs: [String: Epoch] = [:]
    for _ in 0..<2 where theirs.isEmpty {
      let gpsd = try await FakeGPSD.started(capture: path, cycle: 0.002)
      defer { gpsd.stop() }  // (also when gpspipe fails: no gpsfake outlives the test)
      theirs = try await Self.epochs(from: gpsd.port, gpspipe: gpspipe)
    }
    let served = try Served(fixture, speed: 20)
    let ours = try await Self.epochs(from: served.port, gpspipe: gpspipe)
    let common = Set(theirs.keys).intersection(ours.keys)
    #expect(common.count >= 30, "\(common.count) epochs in common (gpsd \(theirs.count), gpsbridge \(ours.count))")
    var differences: [String] = []
    let times = theirs.keys.sorted()
    /// gpsd's epoch after `time`.
    func next(after time: String) -> Epoch? {
      guard let index = times.firstIndex(of: time), index + 1 < times.count else { return nil }
      return theirs[times[index + 1]]
    }
    for time in common.sorted() {
      let (gpsd, served) = (theirs[time]!, ours[time]!)
      var problems: [String] = []
      if gpsd.mode != served.mode { problems.append("mode \(gpsd.mode) vs \(served.mode)") }
      if abs(gpsd.latitude - served.latitude) > 1e-9 || abs(gpsd.longitude - served.longitude) > 1e-9 { problems.append("position") }
      if let a = gpsd.speed, let b = served.speed, abs(a - b) > 0.002 { problems.append("speed \(a) vs \(b)") }
      if let a = gpsd.track, let b = served.track, abs(a - b) > 0.001 { problems.append("track \(a) vs \(b)") }
      if let a = gpsd.satellites, let b = served.satellites, a != b { problems.append("satellites \(a.sorted()) vs \(b.sorted())") }
      // The computed figures, where the epochs saw the same sky (gpsd's DOPs follow its own
      // view of the sky, which lags a GSV group behind at the start).
      // gpsd makes eps, climb and epc from its previous fix. When it has none for an epoch we
      // both have (gpsfake, on a busy machine, hands an epoch over late enough for gpsd to take
      // it for a new start: seen once in 20 runs under double load), they cannot be compared.
      let gpsdHadNoPrevious = gpsd.computed["eps"] == nil && gpsd.computed["climb"] == nil && served.computed["eps"] != nil
      if gpsd.satellites == served.satellites {
        for (name, precision) in Self.computedFields {
          if gpsdHadNoPrevious, ["eps", "epd", "climb", "epc"].contains(name) { continue }
          var theirs = gpsd.computed[name]
          // gpsd computes eph, epv and sep when the cycle's position arrives, from the DOPs it
          // has then: the previous cycle's when the GSA comes after the GGA (as from u-blox and
          // SiRF). gpsbridge uses the epoch's own; gpsd's next epoch shows the same figure
          // (and its epc, made of two epv, follows).
          if ["eph", "epv", "sep", "epc"].contains(name) {
            // Only where both have the epoch before (not the stream's first, nor where gpsfake
            // starts the capture again), and gpsd had real DOPs (not its 99.99 for none).
            guard served.computed[name] != nil, let after = next(after: time)?.computed[name], after < 1000 else { continue }
            theirs = after
          }
          // gpsd's magnetic track comes from its model of the Earth's field when the receiver
          // sends no variation; gpsbridge's model (WMM2025) gives none for these captures' years.
          if name == "magtrack", served.computed[name] == nil { continue }
          // The DOPs follow the satellites used and where they are; gpsd's SKY may carry the
          // previous GSA's or GSV's.
          if name.hasPrefix("sky."), gpsd.used != served.used { continue }
          switch (theirs, served.computed[name]) {
          case (nil, nil): continue
          case (let a?, let b?) where abs(a - b) <= precision * 1.01: continue
          case (let a, let b): problems.append("\(name) \(a.map { "\($0)" } ?? "-") vs \(b.map { "\($0)" } ?? "-")")
          }
        }
      }
      if !problems.isEmpty { differences.append("\(time): " + problems.joined(separator: ", ")) }
    }
    #expect(differences.isEmpty, "\(differences.count) epochs differ: \(differences.prefix(5))")
  }
}
