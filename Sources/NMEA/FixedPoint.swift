/// An exact decimal number as the receiver wrote it: `mantissa × 10^-scale`.
///
/// `"123.4500"` is `FixedPoint(mantissa: 1234500, scale: 4)`. Decoders keep numbers in this
/// form so that nothing is rounded until ``EpochAssembler`` builds a ``Fix`` in `Double`.
public struct FixedPoint: Hashable, Sendable, Codable, CustomStringConvertible {
  public var mantissa: Int64
  /// Digits after the decimal point, 0 through 18.
  public var scale: Int8

  public init(mantissa: Int64, scale: Int8) {
    self.mantissa = mantissa
    self.scale = scale
  }

  /// The nearest `Double`. Exact inputs give a correctly rounded result: both the mantissa
  /// (below 2^53 for up to 15 significant digits) and the power of ten are exact doubles,
  /// and IEEE division rounds once.

  public var doubleValue: Double {
    Double(mantissa) / FixedPoint.powersOfTen[Int(scale)]
  }

  public var description: String {
    guard scale > 0 else { return String(mantissa) }
    let magnitude = String(mantissa.magnitude)
    let padded = String(repeating: "0", count: max(0, Int(scale) + 1 - magnitude.count)) + magnitude
    let split = padded.index(padded.endIndex, offsetBy: -Int(scale))
    return (mantissa < 0 ? "-" : "") + padded[..<split] + "." + padded[split...]
  }

  /// 10^0 through 10^18, all exactly representable. Written out as literals so that the
  /// compiler lays the table out in the binary: no lazy initialization to check on every use.
  static let powersOfTen: [Double] = [
    1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
  ]

  /// 10^0 through 10^18 as integers.
  static let powersOfTenInteger: [Int64] = powersOfTen.map { Int64($0) }
}
