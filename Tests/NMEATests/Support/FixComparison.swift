import NMEA

/// The differences between two fixes, one line per field, with doubles compared to a relative
/// 1e-12 (coordinates to 1e-9 degrees, the agreement asked of gpsd). Empty when they match.
func differences(_ actual: Fix, _ expected: Fix) -> [String] {
  var lines: [String] = []
  func check<Value: Equatable>(_ name: String, _ a: Value, _ e: Value) {
    if a != e { lines.append("\(name): \(a) ≠ expected \(e)") }
  }
  func close(_ name: String, _ a: Double?, _ e: Double?, tolerance: Double = 1e-12) {
    switch (a, e) {
    case (nil, nil): return
    case let (a?, e?) where abs(a - e) <= tolerance * max(1, abs(e)): return
    default: lines.append("\(name): \(String(describing: a)) ≠ expected \(String(describing: e))")
    }
  }
  check("time", actual.time, expected.time)
  check("timestamp", actual.timestamp, expected.timestamp)
  check("mode", actual.mode, expected.mode)
  check("quality", actual.quality, expected.quality)
  close("latitude", actual.latitude, expected.latitude, tolerance: 1e-9)
  close("longitude", actual.longitude, expected.longitude, tolerance: 1e-9)
  close("altitude", actual.altitude, expected.altitude)
  close("geoidSeparation", actual.geoidSeparation, expected.geoidSeparation)
  close("speed", actual.speed, expected.speed)
  close("course", actual.course, expected.course)
  close("magneticVariation", actual.magneticVariation, expected.magneticVariation)
  close("trueHeading", actual.trueHeading, expected.trueHeading)
  check("satellitesUsed", actual.satellitesUsed, expected.satellitesUsed)
  close("pdop", actual.pdop, expected.pdop)
  close("hdop", actual.hdop, expected.hdop)
  close("vdop", actual.vdop, expected.vdop)
  check("errorEstimate", actual.errorEstimate, expected.errorEstimate)
  close("horizontalAccuracy", actual.horizontalAccuracy, expected.horizontalAccuracy)
  close("verticalAccuracy", actual.verticalAccuracy, expected.verticalAccuracy)
  check("satellites", actual.satellites, expected.satellites)
  return lines
}
