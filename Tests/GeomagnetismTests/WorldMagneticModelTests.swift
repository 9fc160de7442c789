import Geomagnetism
import Testing

/// WMM2025 against an independent implementation: pygeomag 1.1.0 (PyPI, a Python WMM after
/// NOAA's reference software), run on the same coefficients at the places and times of the
/// kind NOAA's test values use (80°N, the equator and 80°S, at 0 and 100 km, at the epoch and
/// half-way through) and at a few cities, with more digits than NOAA prints; and NOAA's own
/// published test values. (The pygeomag values were computed once and written down, so the test
/// needs no Python.)
struct WorldMagneticModelTests {
  /// year, altitude (m), latitude, longitude, declination, inclination (°), total field (nT).
  static let reference: [(Double, Double, Double, Double, Double, Double, Double)] = [
    (2025.0, 0, 80, 0, 1.2815, 83.2106, 55178.5),
    (2025.0, 0, 0, 120, -0.1583, -14.9306, 41064.3),
    (2025.0, 0, -80, 240, 68.7754, -72.0050, 54698.2),
    (2025.0, 100000, 80, 0, 0.8520, 83.2594, 52964.9),
    (2025.0, 100000, 0, 120, -0.1463, -15.0757, 39032.1),
    (2025.0, 100000, -80, 240, 68.2137, -72.1881, 52035.0),
    (2027.5, 0, 80, 0, 2.5941, 83.2363, 55253.9),
    (2027.5, 0, 0, 120, -0.2415, -14.6543, 41036.9),
    (2027.5, 0, -80, 240, 68.4861, -71.9172, 54474.2),
    (2027.5, 100000, 80, 0, 2.1605, 83.2852, 53034.3),
    (2027.5, 100000, 0, 120, -0.2259, -14.8084, 39007.4),
    (2027.5, 100000, -80, 240, 67.9316, -72.1023, 51825.7),
    (2026.9, 0, 47.37, 8.54, 3.6576, 63.5120, 48407.1),
    (2026.9, 0, -33.87, 151.21, 12.8301, -64.3951, 56974.3),
    (2026.9, 0, 40.71, -74.01, -12.4563, 65.5077, 50739.9),
    (2026.9, 0, 64.14, -21.94, -11.0118, 75.4177, 52588.5),
    (2026.9, 0, -54.8, -68.3, 11.6208, -51.2407, 31118.6),
    (2026.9, 2000, 52.5, 13.4, 5.1896, 68.0910, 50052.3),
  ]

  @Test func declinationInclinationAndIntensityMatchAnIndependentImplementation() {
    for (year, altitude, latitude, longitude, declination, inclination, total) in Self.reference {
      let field = WorldMagneticModel.wmm2025.field(latitude: latitude, longitude: longitude, altitude: altitude, year: year)
      let place = "\(latitude), \(longitude) at \(altitude) m in \(year)"
      #expect(abs(field.declination - declination) < 0.01, "\(place): declination \(field.declination)")
      #expect(abs(field.inclination - inclination) < 0.01, "\(place): inclination \(field.inclination)")
      #expect(abs(field.total - total) < 1, "\(place): total \(field.total)")
    }
  }

  /// NOAA's published WMM2025 test values (NCEI, "WMM2025 test values", the twelve points of
  /// the model's report: 80°N 0°E, 0° 120°E and 80°S 240°E, at 0 and 100 km above the WGS 84
  /// ellipsoid, in 2025.0 and 2027.5). NOAA prints the field to 0.1 nT and declination to 0.01°.
  /// year, height (km), latitude, longitude, north X, east Y, down Z (nT), declination (°).
  static let noaa: [(Double, Double, Double, Double, Double, Double, Double, Double)] = [
    (2025.0, 0, 80, 0, 6521.6, 145.9, 54791.5, 1.28),
    (2025.0, 0, 0, 120, 39677.8, -109.6, -10580.2, -0.16),
    (2025.0, 0, -80, 240, 6117.5, 15751.9, -52022.5, 68.78),
    (2025.0, 100, 80, 0, 6216.0, 92.4, 52598.8, 0.85),
    (2025.0, 100, 0, 120, 37688.6, -96.2, -10152.1, -0.15),
    (2025.0, 100, -80, 240, 5907.6, 14780.3, -49540.7, 68.21),
    (2027.5, 0, 80, 0, 6500.8, 294.5, 54869.4, 2.59),
    (2027.5, 0, 0, 120, 39701.6, -167.4, -10381.8, -0.24),
    (2027.5, 0, -80, 240, 6200.7, 15730.3, -51783.7, 68.49),
    (2027.5, 100, 80, 0, 6196.7, 233.8, 52670.5, 2.16),
    (2027.5, 100, 0, 120, 37711.5, -148.7, -9969.8, -0.23),
    (2027.5, 100, -80, 240, 5984.0, 14760.1, -49317.7, 67.93),
  ]

  @Test func noaasOwnTestValuesMatch() {
    for (year, height, latitude, longitude, north, east, down, declination) in Self.noaa {
      let field = WorldMagneticModel.wmm2025.field(latitude: latitude, longitude: longitude, altitude: height * 1000, year: year)
      let place = "\(latitude), \(longitude) at \(height) km in \(year)"
      // Printed to two decimals, so a right answer is within 0.005° (0.01° is the bound).
      #expect(abs(field.declination - declination) <= 0.0051, "\(place): declination \(field.declination)")
      #expect(abs(field.north - north) <= 0.06, "\(place): X \(field.north)")
      #expect(abs(field.east - east) <= 0.06, "\(place): Y \(field.east)")
      #expect(abs(field.down - down) <= 0.06, "\(place): Z \(field.down)")
    }
  }

  @Test func theModelSaysWhenItIsValid() {
    let model = WorldMagneticModel.wmm2025
    #expect(model.isValid(in: 2025.0) && model.isValid(in: 2029.99))
    #expect(!model.isValid(in: 2024.9) && !model.isValid(in: 2030.0))
  }
}
