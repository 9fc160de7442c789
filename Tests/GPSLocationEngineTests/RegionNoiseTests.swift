import Foundation
import GPSLocationEngine
import NMEA
import NMEASimulation
import TestHelpers
import Testing

/// Region monitoring against receivers that understate their error, from generated captures
/// whose ground truth is known: a parked receiver must not flap on an edge, and a real pass
/// through a region must still be reported within seconds.
@Suite(.offThePool) struct RegionNoiseTests {
  /// What the simulated receiver states: HDOP 0.9 × 5 m.
  static let statedAccuracy = 4.5
  static let start = UTCTimestamp(date: UTCDate(year: 2024, month: 5, day: 1), time: UTCTime(hour: 9, minute: 0, second: 0))

  struct Outcome {
    var entries: [Date] = []
    var exits: [Date] = []
  }

  /// The capture through the NMEA pipeline and the engine, monitoring `region` from the start.
  static func run(_ simulation: Simulation, region: Region) -> Outcome {
    var engine = LocationEngine()
    _ = engine.startMonitoring(region)
    var decoder = FixDecoder()
    decoder.append(simulation.capture())
    decoder.finish()
    var outcome = Outcome()
    while let fix = decoder.next() {
      guard let location = Location(fix) else { continue }
      for action in engine.handle(fix) {
        if case .didEnterRegion = action { outcome.entries.append(location.timestamp) }
        if case .didExitRegion = action { outcome.exits.append(location.timestamp) }
      }
    }
    return outcome
  }

  /// A point `metres` north of the route's start.
  static func north(of route: Route, _ metres: Double) -> LocationCoordinate2D {
    LocationCoordinate2D(latitude: route.latitude + metres / 6_371_008.8 * 180 / .pi, longitude: route.longitude)
  }

  /// Drives 200 m north at 10 m/s and parks for ten minutes, `offset` metres outside the
  /// southern edge of a region of `radius` (negative: inside).
  static func parked(offset: Double, radius: Double, noise: Double, seed: UInt64) -> (Simulation, Region) {
    let route = Route(
      start: start, latitude: 47.3, longitude: 8.5, course: 0, legs: [.drive(20, speed: 10), .stop(600)])
    let center = north(of: route, 200 + radius + offset)
    let simulation = Simulation(route: route, profile: .ublox, seed: seed, positionNoise: noise * statedAccuracy)
    return (simulation, Region(identifier: "edge", center: center, radius: radius))
  }

  /// Where the receiver parks, and what may be reported for it.
  enum Parking: CaseIterable, CustomStringConvertible {
    /// On the edge: at most one entry and one exit.
    case onTheEdge
    /// 5 m outside: it never truly crosses, so nothing.
    case justOutside
    /// 5 m inside, arriving from outside: at most the one entry, never an exit.
    case justInside

    var offset: Double {
      switch self {
      case .onTheEdge: 0
      case .justOutside: 5
      case .justInside: -5
      }
    }
    var description: String { "\(self.offset) m outside the edge" }

    func allows(_ outcome: Outcome) -> Bool {
      switch self {
      case .onTheEdge: outcome.entries.count <= 1 && outcome.exits.count <= 1
      case .justOutside: outcome.entries.isEmpty && outcome.exits.isEmpty
      case .justInside: outcome.entries.count <= 1 && outcome.exits.isEmpty
      }
    }
  }

  @Test(arguments: [1.0, 2.0, 3.0], Parking.allCases)
  func aParkedReceiverDoesNotFlapWhateverItsNoise(noise: Double, parking: Parking) {
    for seed in UInt64(1)...4 {
      for radius in [50.0, 100.0] {
        let (simulation, region) = Self.parked(offset: parking.offset, radius: radius, noise: noise, seed: seed)
        let outcome = Self.run(simulation, region: region)
        #expect(parking.allows(outcome), "noise \(noise)×, seed \(seed), radius \(radius): \(outcome)")
      }
    }
  }

  /// Straight through the middle of a 100 m region at `speed`, from 300 m before its edge to
  /// 300 m after; the latency of each report after the true crossing.
  static func crossing(speed: Double, noise: Double, seed: UInt64) -> (entry: Double?, exit: Double?, outcome: Outcome) {
    let radius = 100.0
    let approach = 300.0
    let route = Route(
      start: start, latitude: 47.3, longitude: 8.5, course: 0, legs: [.drive((2 * approach + 2 * radius) / speed, speed: speed)])
    let region = Region(identifier: "through", center: north(of: route, approach + radius), radius: radius)
    let simulation = Simulation(route: route, profile: .ublox, seed: seed, positionNoise: noise * statedAccuracy)
    let outcome = Self.run(simulation, region: region)
    let startDate = Date(timeIntervalSince1970: start.secondsSince1970)
    let entered = startDate.addingTimeInterval(approach / speed)
    let left = startDate.addingTimeInterval((approach + 2 * radius) / speed)
    return (outcome.entries.first.map { $0.timeIntervalSince(entered) }, outcome.exits.first.map { $0.timeIntervalSince(left) }, outcome)
  }

  @Test(arguments: [1.0, 3.0])
  func aCarPassingThroughIsReportedWithinSeconds(noise: Double) {
    for seed in UInt64(1)...4 {
      let (entry, exit, outcome) = Self.crossing(speed: 15, noise: noise, seed: seed)
      #expect(outcome.entries.count == 1 && outcome.exits.count == 1, "seed \(seed): \(outcome)")
      #expect(
        (entry ?? .infinity) <= 6 && (exit ?? .infinity) <= 6, "noise \(noise)×, seed \(seed): entry \(entry ?? -1) s, exit \(exit ?? -1) s"
      )
    }
  }

  @Test(arguments: [1.0, 3.0])
  func aWalkerPassingThroughIsReportedOnce(noise: Double) {
    for seed in UInt64(1)...4 {
      let (entry, exit, outcome) = Self.crossing(speed: 1.4, noise: noise, seed: seed)
      #expect(outcome.entries.count == 1 && outcome.exits.count == 1, "seed \(seed): \(outcome)")
      #expect(
        (entry ?? .infinity) <= 30 && (exit ?? .infinity) <= 30,
        "noise \(noise)×, seed \(seed): entry \(entry ?? -1) s, exit \(exit ?? -1) s")
    }
  }
}
