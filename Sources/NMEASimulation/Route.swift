import NMEA
import Plumbing

/// A journey: where and when it starts, and its legs. Its ``states(rate:)`` are the ground
/// truth a simulated receiver reports from (with its own noise), and that tests compare with.
public struct Route: Hashable, Sendable {
  public var start: UTCTimestamp
  public var latitude: Double
  public var longitude: Double
  /// Metres above mean sea level.
  public var altitude: Double
  /// Degrees true at the start.
  public var course: Double
  public var legs: [Leg]

  public init(
    start: UTCTimestamp, latitude: Double, longitude: Double, altitude: Double = 400, course: Double = 90,
    legs: [Leg]
  ) {
    self.start = start
    self.latitude = latitude
    self.longitude = longitude
    self.altitude = altitude
    self.course = course
    self.legs = legs
  }

  /// Seconds from the start to the end of the last leg.
  public var duration: Double { legs.reduce(0) { $0 + $1.seconds } }

  /// The truth at every epoch, `rate` epochs per second, computed as they are read.
  public func states(rate: Double) -> States { States(route: self, rate: rate) }

  /// The truth, epoch by epoch.
  public struct States: Sequence, Sendable {
    let route: Route
    let rate: Double

    public func makeIterator() -> Iterator { Iterator(route: route, rate: rate) }

    public struct Iterator: IteratorProtocol, Sendable {
      let route: Route
      let step: Double
      var index = 0
      var legIndex = 0
      var epochInLeg = 0
      var latitude: Double
      var longitude: Double
      var altitude: Double
      var course: Double
      var hoverAngle = 0.0
      var hoverCenter: (Double, Double)?

      init(route: Route, rate: Double) {
        self.route = route
        self.step = 1 / Swift.max(rate, 0.001)
        latitude = route.latitude
        longitude = route.longitude
        altitude = route.altitude
        course = route.course
      }

      public mutating func next() -> RouteState? {
        while legIndex < route.legs.count, Double(epochInLeg) * step >= route.legs[legIndex].seconds - step / 2 {
          legIndex += 1
          epochInLeg = 0
          hoverCenter = nil
        }
        guard legIndex < route.legs.count else { return nil }
        let leg = route.legs[legIndex]
        let nanoseconds = Int64((Double(index) * step * 1e9).rounded())
        var state = RouteState(
          time: UTCTimestamp(nanosecondsSince1970: route.start.nanosecondsSince1970 + nanoseconds),
          latitude: latitude, longitude: longitude, altitude: altitude, speed: leg.speed,
          course: normalized(course), hasFix: leg.hasFix, leg: legIndex)
        if leg.hoverRadius > 0 {
          // Circle once a minute around the point where the hover began.
          let center = hoverCenter ?? (latitude, longitude)
          hoverCenter = center
          let angularSpeed = 2 * Double.pi / 60
          state.speed = leg.hoverRadius * angularSpeed
          state.course = normalized(hoverAngle * 180 / .pi + 90)
          (state.latitude, state.longitude) = offset(
            center, north: leg.hoverRadius * cos(hoverAngle), east: leg.hoverRadius * sin(hoverAngle))
          hoverAngle += angularSpeed * step
        } else {
          course += leg.turnRate * step
          let distance = leg.speed * step
          (latitude, longitude) = offset(
            (latitude, longitude), north: distance * cos(course * .pi / 180), east: distance * sin(course * .pi / 180))
          altitude += 0.01 * distance * sin(Double(index) * step / 50)
        }
        index += 1
        epochInLeg += 1
        return state
      }

      func offset(_ from: (Double, Double), north: Double, east: Double) -> (Double, Double) {
        let latitude = from.0 + north / earthRadius * 180 / .pi
        let longitude = from.1 + east / (earthRadius * cos(from.0 * .pi / 180)) * 180 / .pi
        return (latitude, longitude)
      }

      func normalized(_ degrees: Double) -> Double {
        let value = degrees.truncatingRemainder(dividingBy: 360)
        return value < 0 ? value + 360 : value
      }
    }
  }
}

/// The mean Earth radius, metres (IUGG).
let earthRadius = 6_371_008.8

/// Where a simulated receiver truly is at one epoch.
public struct RouteState: Hashable, Sendable {
  public var time: UTCTimestamp
  public var latitude: Double
  public var longitude: Double
  public var altitude: Double
  /// Metres per second over ground.
  public var speed: Double
  /// Degrees true.
  public var course: Double
  /// Whether the receiver has a fix here.
  public var hasFix: Bool
  /// Which leg of the route this is.
  public var leg: Int
}

extension Route {
  /// This route cut or carried on to last `seconds`: beyond its own legs it keeps driving a
  /// loop of straights, turns and short stops, so a simulation can run for as long as asked.
  public func lasting(_ seconds: Double) -> Route {
    var route = self
    route.legs = []
    var total = 0.0
    let cruise: [Leg] = [
      .drive(60, speed: 14), .turn(10, speed: 10, degreesPerSecond: 9), .drive(45, speed: 20), .stop(30),
      .turn(10, speed: 8, degreesPerSecond: -9), .drive(90, speed: 25), .turn(20, speed: 12, degreesPerSecond: 9),
    ]
    var source = legs.makeIterator()
    var loop = 0
    while total < seconds {
      var leg: Leg
      if let next = source.next() {
        leg = next
      } else {
        leg = cruise[loop % cruise.count]
        loop += 1
      }
      leg.seconds = Swift.min(leg.seconds, seconds - total)
      total += leg.seconds
      route.legs.append(leg)
    }
    return route
  }
}
