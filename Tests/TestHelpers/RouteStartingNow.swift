import Foundation
import NMEA
import NMEASimulation

extension Route {
  /// The route starting at the next whole second: a live receiver's epochs are due now.
  public var startingNow: Route {
    var route = self
    route.start = UTCTimestamp(nanosecondsSince1970: Int64(Date().timeIntervalSince1970.rounded(.up)) * 1_000_000_000)
    return route
  }
}
