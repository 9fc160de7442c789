import NMEA

extension WorldMagneticModel {
  /// The magnetic declination (variation) at `fix`'s place and date, degrees east: `nil` when
  /// the fix has no position or no date, or its date is outside the model's validity (an old
  /// replay, a receiver with the week-rollover bug): nothing is extrapolated.
  public func declination(for fix: Fix) -> Double? {
    guard fix.hasPosition, let latitude = fix.latitude, let longitude = fix.longitude, let timestamp = fix.timestamp else {
      return nil
    }
    let year = Self.decimalYear(timestamp)
    guard isValid(in: year) else { return nil }
    let altitude = fix.ellipsoidalAltitude ?? fix.altitude ?? 0
    return field(latitude: latitude, longitude: longitude, altitude: altitude, year: year).declination
  }

  /// `timestamp` as a decimal year: 2026.5 is noon on 2 July 2026.
  static func decimalYear(_ timestamp: UTCTimestamp) -> Double {
    let year = timestamp.date.year
    let start = UTCTimestamp(date: UTCDate(year: year, month: 1, day: 1), time: UTCTime(nanosecondsSinceMidnight: 0))
    let end = UTCTimestamp(date: UTCDate(year: year + 1, month: 1, day: 1), time: UTCTime(nanosecondsSinceMidnight: 0))
    let elapsed = Double(timestamp.nanosecondsSince1970 - start.nanosecondsSince1970)
    return Double(year) + elapsed / Double(end.nanosecondsSince1970 - start.nanosecondsSince1970)
  }
}
