import NMEA
import NMEASimulation
import TestHelpers
import Testing

@Suite(.offThePool) struct SimulationTests {
  static let route = Route(
    start: UTCTimestamp(date: UTCDate(year: 2024, month: 5, day: 1), time: UTCTime(hour: 23, minute: 59, second: 30)),
    latitude: 47.3769, longitude: 8.5417,
    legs: [.stop(5), .drive(20, speed: 12), .turn(10, speed: 8, degreesPerSecond: 9), .tunnel(5, speed: 10), .hover(20, radius: 5)])

  static func decode(_ simulation: Simulation) -> [Fix] {
    var decoder = FixDecoder()
    decoder.append(simulation.capture())
    decoder.finish()
    var fixes: [Fix] = []
    while let fix = decoder.next() { fixes.append(fix) }
    return fixes
  }

  @Test(arguments: ReceiverProfile.all)
  func everyProfileDecodesToOneFixPerEpochAtItsTruth(_ profile: ReceiverProfile) throws {
    let simulation = Simulation(route: Self.route, profile: profile)
    let truth = Array(simulation.epochs().map(\.truth))
    let fixes = Self.decode(simulation)
    #expect(fixes.count == truth.count)
    for (fix, state) in zip(fixes, truth) {
      #expect(fix.timestamp == state.time, "\(state.time)")
      #expect(fix.hasPosition == state.hasFix, "\(state.time)")
      guard let latitude = fix.latitude, let longitude = fix.longitude else { continue }
      // Four decimals of minutes are 0.2 m: the coarsest any profile writes.
      #expect(abs(latitude - state.latitude) < 2e-6 && abs(longitude - state.longitude) < 3e-6, "\(state.time)")
      if profile != .ggaOnly, state.speed > 1 {
        #expect(abs((fix.speed ?? -1) - state.speed) < 0.06, "speed at \(state.time)")
      }
    }
    // The route crosses midnight: dates follow.
    #expect(fixes.last?.timestamp?.date == UTCDate(year: 2024, month: 5, day: 2))
  }

  @Test func theSameSimulationGivesTheSameBytes() {
    let a = Simulation(route: Self.route, profile: .rtk, seed: 3, positionNoise: 2)
    #expect(a.capture() == a.capture())
    #expect(a.capture() != Simulation(route: Self.route, profile: .rtk, seed: 4, positionNoise: 2).capture())
  }

  @Test func positionNoiseHasTheAskedSpread() {
    let still = Route(start: Self.route.start, latitude: 47.3769, longitude: 8.5417, legs: [.stop(2000)])
    let fixes = Self.decode(Simulation(route: still, profile: .ublox, positionNoise: 3))
    let metresPerDegree = 6_371_008.8 * Double.pi / 180
    let north = fixes.compactMap { $0.latitude.map { ($0 - 47.3769) * metresPerDegree } }
    let rms = (north.map { $0 * $0 }.reduce(0, +) / Double(north.count)).squareRoot()
    #expect(abs(rms - 3) < 0.3, "rms \(rms)")
  }

  @Test func aRouteLastsAsLongAsAsked() {
    #expect(Route.demoDrive.lasting(10).duration == 10)
    #expect(Route.demoDrive.lasting(10_000).duration == 10_000)
    #expect(Array(Route.demoDrive.lasting(100).states(rate: 10)).count == 1000)
  }

  @Test func theDemoDrivesPlacesLieOnItsRoute() {
    let states = Array(Route.demoDrive.states(rate: 1))
    #expect(Route.demoPlaces.map(\.identifier) == ["depot", "bridge", "shop", "elsewhere"])
    #expect(Route.demoPlaces[0].latitude == states[0].latitude && Route.demoPlaces[0].longitude == states[0].longitude)
  }
}
