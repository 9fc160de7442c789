import FoundationEssentials
import Trigonometry

/// What a location leaves for the next one to measure its speed against, when the receiver
/// states none (a GGA-only receiver, a handheld's GLL sent in a second of its own): the
/// distance between the two positions on the ellipsoid over the time between them, as gpsd
/// computes it, so a receiver that says no speed still has one and gpsd's clients and ours
/// agree. Its accuracy says what it is worth: the two positions' uncertainties over the same
/// time (a receiver standing still with 5 m accuracy moves "0.3 m/s ± 10 m/s"), unknown when
/// either position's is (a handheld's GLL second carries no accuracy), as a receiver's own
/// speed's is.
struct SpeedReference: Sendable {
  var timestamp: Date
  var latitude: Double
  var longitude: Double
  var horizontalAccuracy: Double

  init(_ location: Location) {
    timestamp = location.timestamp
    latitude = location.coordinate.latitude
    longitude = location.coordinate.longitude
    horizontalAccuracy = location.horizontalAccuracy
  }

  /// Sets `location`'s speed and speed accuracy from this earlier one; leaves it as it is when
  /// the time between does not go forward, or when the speed would be beyond anything that
  /// carries a receiver (10 km/s, gpsd's bound: a spliced capture, a position from another
  /// place).
  func giveSpeed(to location: inout Location) {
    // To the microsecond: two stamps 0.2 s apart are 0.2000000477 s apart as `Date`s.
    let elapsed = (location.timestamp.timeIntervalSince(timestamp) * 1e6).rounded() / 1e6
    guard elapsed > 0,
      let distance = ellipsoidDistance(
        latitude1: latitude, longitude1: longitude, latitude2: location.coordinate.latitude,
        longitude2: location.coordinate.longitude),
      distance / elapsed <= 9999.9
    else { return }
    location.speed = distance / elapsed
    location.speedIsMeasured = true
    if horizontalAccuracy >= 0, location.horizontalAccuracy >= 0 {
      location.speedAccuracy = (horizontalAccuracy + location.horizontalAccuracy) / elapsed
    }
  }
}
