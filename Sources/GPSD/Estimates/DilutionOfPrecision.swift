import NMEA
import Plumbing

/// The dilutions of precision a receiver's sky gives, computed from the used satellites'
/// azimuths and elevations: what gpsd fills in for the DOPs NMEA receivers do not send
/// (`xdop`, `ydop`, `tdop`, `gdop`).
///
/// Each used satellite is a line of sight (east, north, up) and a clock term; with G the
/// matrix of those rows, Q = (GᵀG)⁻¹, and each DOP is the square root of a sum of Q's
/// diagonal: x east, y north, v up, t the clock, h = x + y, p = h + v, g all four.
package struct DilutionOfPrecision: Hashable, Sendable {
  package var x: Double
  package var y: Double
  package var horizontal: Double
  package var vertical: Double
  package var position: Double
  package var time: Double
  package var geometric: Double

  /// The DOPs of `satellites`' used ones with a plausible azimuth and elevation; `nil` with
  /// fewer than four, or when they lie so that no solution is defined.
  package init?(_ satellites: [Fix.Satellite]) {
    // Fixed-size matrices: this runs for every epoch a client is sent, between the epoch's
    // last byte and the write, so it allocates nothing.
    var normal = Matrix4()
    var count = 0
    for satellite in satellites where satellite.isUsed && satellite.number >= 1 {
      guard let azimuth = satellite.azimuth, (0...359).contains(azimuth), let elevation = satellite.elevation, abs(elevation) <= 90
      else { continue }
      let a = Double(azimuth) * .pi / 180, e = Double(elevation) * .pi / 180
      let row: InlineArray<4, Double> = [sin(a) * cos(e), cos(a) * cos(e), sin(e), 1]
      for i in 0..<4 { for j in 0..<4 { normal[i, j] += row[i] * row[j] } }
      count += 1
    }
    guard count >= 4, let inverse = normal.inverse() else { return nil }
    let q: InlineArray<4, Double> = [inverse[0, 0], inverse[1, 1], inverse[2, 2], inverse[3, 3]]
    for i in 0..<4 { guard q[i] >= 0, q[i].isFinite else { return nil } }
    x = q[0].squareRoot()
    y = q[1].squareRoot()
    horizontal = (q[0] + q[1]).squareRoot()
    vertical = q[2].squareRoot()
    position = (q[0] + q[1] + q[2]).squareRoot()
    time = q[3].squareRoot()
    geometric = (q[0] + q[1] + q[2] + q[3]).squareRoot()
  }
}

/// A 4×4 matrix of doubles, row by row, held inline.
struct Matrix4 {
  private var elements = InlineArray<16, Double>(repeating: 0)

  /// The zero matrix.
  init() {}

  static var identity: Matrix4 {
    var matrix = Matrix4()
    for i in 0..<4 { matrix[i, i] = 1 }
    return matrix
  }

  subscript(row: Int, column: Int) -> Double {
    get { elements[row * 4 + column] }
    set { elements[row * 4 + column] = newValue }
  }

  private mutating func swapRows(_ first: Int, _ second: Int) {
    guard first != second else { return }
    for j in 0..<4 { (self[first, j], self[second, j]) = (self[second, j], self[first, j]) }
  }

  /// The inverse by Gauss–Jordan elimination with partial pivoting; `nil` when the matrix
  /// is singular.
  func inverse() -> Matrix4? {
    var a = self
    var result = Matrix4.identity
    for column in 0..<4 {
      var pivot = column
      for row in column + 1..<4 where abs(a[row, column]) > abs(a[pivot, column]) { pivot = row }
      guard abs(a[pivot, column]) > 1e-12 else { return nil }
      a.swapRows(column, pivot)
      result.swapRows(column, pivot)
      let scale = a[column, column]
      for j in 0..<4 {
        a[column, j] /= scale
        result[column, j] /= scale
      }
      for row in 0..<4 where row != column {
        let factor = a[row, column]
        guard factor != 0 else { continue }
        for j in 0..<4 {
          a[row, j] -= factor * a[column, j]
          result[row, j] -= factor * result[column, j]
        }
      }
    }
    return result
  }
}
