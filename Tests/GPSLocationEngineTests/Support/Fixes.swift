import FoundationEssentials
import GPSLocationEngine
import NMEA

/// Metres to degrees of latitude, near enough for building test positions.
let metresPerDegree = 111_195.0

/// A fix at `seconds` after 2024-05-01T08:00:00Z, `north`/`east` metres from a base point.
func fix(
  _ seconds: Double, north: Double = 0, east: Double = 0, accuracy: Double = 5, speed: Double? = 0,
  course: Double? = nil, magneticVariation: Double? = nil, trueHeading: Double? = nil, hasFix: Bool = true
) -> Fix {
  let base = UTCTimestamp(date: UTCDate(year: 2024, month: 5, day: 1), time: UTCTime(hour: 8, minute: 0, second: 0))
  let stamp = UTCTimestamp(nanosecondsSince1970: base.nanosecondsSince1970 + Int64(seconds * 1e9))
  guard hasFix else { return Fix(time: stamp.time, timestamp: stamp) }
  return Fix(
    time: stamp.time, timestamp: stamp, mode: .threeD, quality: .gps,
    latitude: 47 + north / metresPerDegree, longitude: 8 + east / (metresPerDegree * 0.6819983600624985),
    altitude: 400, speed: speed, course: course, magneticVariation: magneticVariation, trueHeading: trueHeading,
    satellitesUsed: 9, hdop: accuracy / 5, horizontalAccuracy: accuracy)
}

func date(_ seconds: Double) -> Date {
  Date(timeIntervalSince1970: 1_714_550_400 + seconds)
}

let base = LocationCoordinate2D(latitude: 47, longitude: 8)

/// The locations in a list of actions.
func locations(_ actions: [LocationManager.Action]) -> [Location] {
  actions.flatMap { action -> [Location] in
    if case .didUpdateLocations(let locations) = action { return locations }
    return []
  }
}
