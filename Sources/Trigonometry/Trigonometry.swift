// The few functions of the C maths library the engine needs, so the engine itself imports no
// C library (and no Foundation): it stays pure by module, not by convention.
#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Sine of an angle in radians.
@inlinable package func sine(_ x: Double) -> Double { sin(x) }
/// Cosine of an angle in radians.
@inlinable package func cosine(_ x: Double) -> Double { cos(x) }
/// The angle in radians whose sine is `x`.
@inlinable package func arcSine(_ x: Double) -> Double { asin(x) }
/// The angle in radians whose tangent is `x`.
/// The angle in radians of the point (`x`, `y`), −π…π.
@inlinable package func arcTangent2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
