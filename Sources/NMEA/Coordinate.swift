/// A latitude or longitude as NMEA writes it: whole degrees, then minutes, then a hemisphere.
///
/// `4916.45,N` is 49 degrees and 16.45 minutes north. The minutes stay exact (a
/// ``FixedPoint``) so that ``degrees`` is computed once, from exact parts.
public struct Coordinate: Hashable, Sendable, Codable {
  /// Whole degrees, 0 through 180.
  public var wholeDegrees: Int
  /// Minutes, below 60.
  public var minutes: FixedPoint
  /// True in the southern and western hemispheres.
  public var isNegative: Bool

  public init(wholeDegrees: Int, minutes: FixedPoint, isNegative: Bool) {
    self.wholeDegrees = wholeDegrees
    self.minutes = minutes
    self.isNegative = isNegative
  }

  /// Signed decimal degrees, `±(dd + mm/60)`.
  ///
  /// The minutes' mantissa is divided by `60 × 10^scale` in one step. Both are exact doubles
  /// for the up to twelve decimals accepted, so this rounds once for the division and once for
  /// the addition: within a few 1e-15 degrees of the exact value.
  public var degrees: Double {
    let minutesDivisor = 60 * FixedPoint.powersOfTen[Int(minutes.scale)]
    let value = Double(wholeDegrees) + Double(minutes.mantissa) / minutesDivisor
    return isNegative ? -value : value
  }
}
