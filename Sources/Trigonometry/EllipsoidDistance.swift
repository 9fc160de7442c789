#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Distance on the WGS-84 ellipsoid, metres, by Vincenty's inverse formula (iterated to
/// 1e-12 rad): gpsd derives speeds, track and speed errors from it, so the server and the
/// engine do too, to give the same figures (the haversine's sphere is up to 0.5 % off, 0.02
/// m/s at 4 m/s). `nil` when the iteration does not converge (nearly antipodal points).
package func ellipsoidDistance(latitude1: Double, longitude1: Double, latitude2: Double, longitude2: Double) -> Double? {
  let a = 6_378_137.0
  let f = 1 / 298.257223563
  let b = a * (1 - f)
  let l = (longitude2 - longitude1) * .pi / 180
  let u1 = atan((1 - f) * tan(latitude1 * .pi / 180))
  let u2 = atan((1 - f) * tan(latitude2 * .pi / 180))
  let (sinU1, cosU1, sinU2, cosU2) = (sin(u1), cos(u1), sin(u2), cos(u2))
  var lambda = l
  for _ in 0..<100 {
    let sinLambda = sin(lambda), cosLambda = cos(lambda)
    let sinSigma =
      ((cosU2 * sinLambda) * (cosU2 * sinLambda)
      + (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda) * (cosU1 * sinU2 - sinU1 * cosU2 * cosLambda)).squareRoot()
    if sinSigma == 0 { return 0 }  // the same point
    let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
    let sigma = atan2(sinSigma, cosSigma)
    let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
    let cosSquaredAlpha = 1 - sinAlpha * sinAlpha
    let cos2SigmaM = cosSquaredAlpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cosSquaredAlpha : 0
    let c = f / 16 * cosSquaredAlpha * (4 + f * (4 - 3 * cosSquaredAlpha))
    let previous = lambda
    lambda = l + (1 - c) * f * sinAlpha * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
    if abs(lambda - previous) < 1e-12 {
      let uSquared = cosSquaredAlpha * (a * a - b * b) / (b * b)
      let bigA = 1 + uSquared / 16384 * (4096 + uSquared * (-768 + uSquared * (320 - 175 * uSquared)))
      let bigB = uSquared / 1024 * (256 + uSquared * (-128 + uSquared * (74 - 47 * uSquared)))
      let deltaSigma =
        bigB * sinSigma
        * (cos2SigmaM + bigB / 4
          * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) - bigB / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma)
            * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
      return b * bigA * (sigma - deltaSigma)
    }
  }
  return nil
}
