import NMEA

/// A named circle along a route, for region monitoring in demos and tests.
public struct Place: Hashable, Sendable {
  public var identifier: String
  public var latitude: Double
  public var longitude: Double
  /// Metres.
  public var radius: Double
}

extension Route {
  /// The drive `gpsbridge` shows when it finds no receiver: out of a depot, a right turn onto
  /// a bridge, a stop at a shop long enough to be a visit, a tunnel, and home.
  public static let demoDrive = Route(
    start: UTCTimestamp(date: UTCDate(year: 2024, month: 5, day: 1), time: UTCTime(hour: 8, minute: 0, second: 0)),
    latitude: 47.376_90, longitude: 8.541_70, altitude: 410, course: 90,
    legs: [
      .stop(3),  // parked in the depot
      .drive(6, speed: 12),  // out of the depot, east
      .turn(6, speed: 10, degreesPerSecond: 15),  // right, to the south
      .drive(14, speed: 10),  // over the bridge
      .stop(45),  // at the shop: a visit
      .turn(6, speed: 9, degreesPerSecond: -15),  // pull out, bearing left
      .drive(40, speed: 14),
      .tunnel(20, speed: 15),  // no fix in the tunnel
      .drive(30, speed: 15),
      .stop(60),  // home
      .drive(20, speed: 10),  // and away again
    ])

  /// The places the demo drive passes, as regions to monitor: the depot it starts in, the
  /// bridge it crosses, the shop it stops at, and one it never reaches.
  public static let demoPlaces: [Place] = {
    let states = Array(demoDrive.states(rate: 1))
    func place(_ identifier: String, at second: Int, radius: Double) -> Place {
      Place(identifier: identifier, latitude: states[second].latitude, longitude: states[second].longitude, radius: radius)
    }
    return [
      place("depot", at: 0, radius: 40),
      place("bridge", at: 22, radius: 50),
      place("shop", at: 50, radius: 40),
      Place(identifier: "elsewhere", latitude: 47.40, longitude: 8.60, radius: 200),
    ]
  }()
}

extension Simulation {
  /// The demo drive as a u-blox receiver sends it, 1 Hz.
  public static let demoDrive = Simulation(route: .demoDrive, profile: .ublox, seed: 7)
}
