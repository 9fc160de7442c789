import NMEA
import Testing

/// Derived values keep the receiver's decimals: a sum of two written decimals is printed as
/// the decimal it makes, never with binary noise in the last digits.
@Suite struct DecimalSumTests {
  @Test func ellipsoidalAltitudeIsTheDecimalSum() throws {
    var checked = 0
    for altitude in stride(from: -50, through: 3000, by: 7) {
      for separation in stride(from: -105, through: 90, by: 13) {
        for tenths in 0..<10 {
          let written = (Double(altitude) + Double(tenths) / 10, Double(separation) + Double(9 - tenths) / 10)
          let fix = Fix(time: UTCTime(hour: 0, minute: 0, second: 0), altitude: written.0, geoidSeparation: written.1)
          // The exact sum in tenths, written out as a decimal and read back.
          let tenthsSum = (altitude + separation) * 10 + 9
          let expected = Double((tenthsSum < 0 ? "-" : "") + "\(abs(tenthsSum) / 10).\(abs(tenthsSum) % 10)")
          #expect(fix.ellipsoidalAltitude == expected, "\(written.0) + \(written.1)")
          checked += 1
        }
      }
    }
    #expect(checked > 10_000)
  }

  @Test func aSumThatBinaryArithmeticGetsWrong() {
    let fix = Fix(time: UTCTime(hour: 0, minute: 0, second: 0), altitude: 408.1, geoidSeparation: 47.3)
    #expect((408.1 + 47.3).description == "455.40000000000003")  // the binary sum
    #expect(fix.ellipsoidalAltitude?.description == "455.4")
  }
}
