import Trigonometry

/// A spherical-harmonic model of the Earth's main magnetic field, such as NOAA's World
/// Magnetic Model: the magnetic declination (variation) that turns a true course into a
/// magnetic one, where a receiver does not say it.
///
/// The field is the gradient of a potential expanded in Schmidt semi-normalised associated
/// Legendre functions to degree and order 12, with coefficients that change linearly with time
/// from the model's epoch. A position given on the WGS 84 ellipsoid is first turned into
/// geocentric spherical coordinates; the field found there is turned back to the ellipsoid's
/// north, east and down.
///
/// Accuracy: the model's own, at the Earth's surface about 0.3° in declination (0.2° in
/// inclination, 140 nT in intensity) as a global average by its technical report, worse near
/// the magnetic poles, where the declination changes quickly, and undefined at the geographic
/// poles. Outside its validity the model is extrapolated (see ``field(latitude:longitude:altitude:year:)``).
public struct WorldMagneticModel: Sendable {
  /// The model's name, "WMM2025".
  public let name: String
  /// The decimal year the coefficients are given for.
  public let epoch: Double
  /// The decimal year up to which the model is valid.
  public let validUntil: Double
  private let degree: Int
  /// g, h, ġ and ḣ by [n][m].
  private let g: [[Double]], h: [[Double]], gRate: [[Double]], hRate: [[Double]]

  /// The geomagnetic reference radius, kilometres.
  static let referenceRadius = 6371.2
  /// WGS 84: semi-major axis, kilometres, and flattening.
  static let semiMajorAxis = 6378.137
  static let flattening = 1 / 298.257223563

  /// A model from its rows: (n, m, g, h, ġ, ḣ), in nT and nT a year.
  public init(name: String, epoch: Double, validUntil: Double, coefficients: [(Int, Int, Double, Double, Double, Double)]) {
    self.name = name
    self.epoch = epoch
    self.validUntil = validUntil
    let degree = coefficients.map(\.0).max() ?? 0
    self.degree = degree
    var g = Array(repeating: Array(repeating: 0.0, count: degree + 1), count: degree + 1)
    var h = g, gRate = g, hRate = g
    for (n, m, gValue, hValue, gDot, hDot) in coefficients where n <= degree && m <= n {
      g[n][m] = gValue
      h[n][m] = hValue
      gRate[n][m] = gDot
      hRate[n][m] = hDot
    }
    (self.g, self.h, self.gRate, self.hRate) = (g, h, gRate, hRate)
  }

  /// Whether `year` is within the model's validity (from its epoch to ``validUntil``).
  public func isValid(in year: Double) -> Bool { year >= epoch && year < validUntil }

  /// The field at a place and time.
  /// - Parameters:
  ///   - latitude: degrees north, geodetic (WGS 84), as a receiver gives it.
  ///   - longitude: degrees east.
  ///   - altitude: metres above the ellipsoid (a receiver's altitude above mean sea level
  ///     differs by the geoid's tens of metres, which changes the declination by far less than
  ///     the model's accuracy).
  ///   - year: decimal year (2026.5 is the start of July 2026). A year outside the model's
  ///     validity is extrapolated all the same: the caller decides whether to use it
  ///     (``isValid(in:)``); gpsbridge does not, and says so.
  public func field(latitude: Double, longitude: Double, altitude: Double, year: Double) -> MagneticField {
    let radians = Double.pi / 180
    // Geodetic to geocentric spherical.
    let phi = max(-89.999_999, min(89.999_999, latitude)) * radians
    let lambda = longitude * radians
    let heightKm = altitude / 1000
    let eccentricitySquared = Self.flattening * (2 - Self.flattening)
    let sinPhi = sine(phi), cosPhi = cosine(phi)
    let normalRadius = Self.semiMajorAxis / (1 - eccentricitySquared * sinPhi * sinPhi).squareRoot()
    let p = (normalRadius + heightKm) * cosPhi
    let z = (normalRadius * (1 - eccentricitySquared) + heightKm) * sinPhi
    let r = (p * p + z * z).squareRoot()
    let phiPrime = arcSine(z / r)

    // Schmidt semi-normalised Legendre functions of the colatitude θ (x = cos θ, s = sin θ)
    // and their derivatives by θ.
    let x = sine(phiPrime), s = cosine(phiPrime)
    var P = Array(repeating: Array(repeating: 0.0, count: degree + 1), count: degree + 1)
    var dP = P
    P[0][0] = 1
    for n in 1...degree {
      for m in 0...n {
        if n == m {
          let factor = n == 1 ? 1 : (Double(2 * n - 1) / Double(2 * n)).squareRoot()
          P[n][n] = factor * s * P[n - 1][n - 1]
          dP[n][n] = factor * (s * dP[n - 1][n - 1] + x * P[n - 1][n - 1])
        } else {
          let previous = n >= 2 && m <= n - 2
          let k = previous ? Double((n - 1) * (n - 1) - m * m).squareRoot() : 0
          let norm = Double(n * n - m * m).squareRoot()
          let twoNMinusOne = Double(2 * n - 1)
          P[n][m] = (twoNMinusOne * x * P[n - 1][m] - (previous ? k * P[n - 2][m] : 0)) / norm
          dP[n][m] = (twoNMinusOne * (x * dP[n - 1][m] - s * P[n - 1][m]) - (previous ? k * dP[n - 2][m] : 0)) / norm
        }
      }
    }

    // The field's components in geocentric spherical coordinates: north, east, down.
    let elapsed = year - epoch
    var north = 0.0, east = 0.0, down = 0.0
    let ratio = Self.referenceRadius / r
    var power = ratio * ratio
    for n in 1...degree {
      power *= ratio  // (a/r)^(n+2)
      for m in 0...n {
        let gValue = g[n][m] + elapsed * gRate[n][m]
        let hValue = h[n][m] + elapsed * hRate[n][m]
        let cosML = cosine(Double(m) * lambda), sinML = sine(Double(m) * lambda)
        let along = gValue * cosML + hValue * sinML
        north += power * along * dP[n][m]
        east += power * Double(m) * (gValue * sinML - hValue * cosML) * P[n][m]
        down -= power * Double(n + 1) * along * P[n][m]
      }
    }
    east /= s

    // Back to the ellipsoid's north and down.
    let tilt = phiPrime - phi
    let northGeodetic = north * cosine(tilt) - down * sine(tilt)
    let downGeodetic = north * sine(tilt) + down * cosine(tilt)
    return MagneticField(north: northGeodetic, east: east, down: downGeodetic)
  }
}

/// The Earth's magnetic field at a place: its components and the angles a compass shows.
public struct MagneticField: Hashable, Sendable {
  /// Northward component, nT.
  public var north: Double
  /// Eastward component, nT.
  public var east: Double
  /// Downward component, nT.
  public var down: Double

  /// Horizontal intensity, nT.
  public var horizontal: Double { (north * north + east * east).squareRoot() }
  /// Total intensity, nT.
  public var total: Double { (north * north + east * east + down * down).squareRoot() }
  /// Declination (magnetic variation), degrees east of true north: a true course minus the
  /// declination is the magnetic course.
  public var declination: Double { arcTangent2(east, north) * 180 / .pi }
  /// Inclination (dip), degrees below the horizontal.
  public var inclination: Double { arcTangent2(down, horizontal) * 180 / .pi }
}
