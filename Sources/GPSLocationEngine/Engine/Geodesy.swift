import FoundationEssentials
import Trigonometry

/// Mean Earth radius (IUGG), metres.
let earthRadius = 6_371_008.8

extension LocationCoordinate2D {
  /// Great-circle distance in metres by the haversine formula: within 0.5% of the ellipsoidal
  /// distance everywhere, and exact enough for geofences and stay points.
  public func distance(to other: LocationCoordinate2D) -> Double {
    let lat1 = latitude * .pi / 180
    let lat2 = other.latitude * .pi / 180
    let dLat = lat2 - lat1
    let dLon = (other.longitude - longitude) * .pi / 180
    let a = sine(dLat / 2) * sine(dLat / 2) + cosine(lat1) * cosine(lat2) * sine(dLon / 2) * sine(dLon / 2)
    return 2 * earthRadius * arcSine(min(1, a.squareRoot()))
  }
}

/// The smallest difference between two angles in degrees, 0…180.
func angularDifference(_ a: Double, _ b: Double) -> Double {
  let difference = abs((a - b).truncatingRemainder(dividingBy: 360))
  return difference > 180 ? 360 - difference : difference
}

/// An angle in degrees brought into 0..<360.
func normalizedDegrees(_ angle: Double) -> Double {
  let value = angle.truncatingRemainder(dividingBy: 360)
  return value < 0 ? value + 360 : value
}
