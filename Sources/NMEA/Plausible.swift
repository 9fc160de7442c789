/// The values a receiver on or near the Earth can report. A field outside its range is a
/// corrupted one, rejected like text that does not parse: by the NMEA decoders (the
/// sentence is dropped and counted) and by gpsd's report decoding (the line is dropped and
/// counted), so both paths agree on what they pass on.
package enum Plausible {
  /// Metres: from below the deepest ocean trench to low Earth orbit.
  package static let altitude = -12_000.0...1_000_000
  /// Metres: the geoid departs from the WGS-84 ellipsoid by little more than 100 m.
  package static let geoidSeparation = -150.0...150
  /// Metres per second: faster than an orbit.
  package static let speed = 0.0...12_000
  /// The same in knots and kilometres per hour, as NMEA writes speeds.
  package static let speedKnots = 0.0...(speed.upperBound * 3600 / 1852)
  package static let speedKilometresPerHour = 0.0...(speed.upperBound * 3.6)
  /// Metres per second, up or down.
  package static let climb = -12_000.0...12_000
  /// Degrees: courses, headings and azimuths (360 is north, as some receivers write it).
  package static let direction = 0.0...360
  /// Degrees of magnetic variation, east positive.
  package static let variation = -180.0...180
  /// Metres: error estimates (a receiver with no idea says 9999 or so).
  package static let error = 0.0...10_000_000
  /// Dilutions of precision (receivers write 99.99 for "none").
  package static let dilution = 0.0...100
}
