import NMEA
import Testing
import Transports

@testable import ReceiverSetup

/// A receiver's rate, measured by the times its epochs carry.
@Suite struct OutputMeasurementTests {
  /// Fixes at `times` (seconds of the day) published to a meter.
  static func measured(_ times: [Double]) -> OutputMeasurement {
    let receiver = Receiver(ReplaySource(capture: .bytes([]), speed: .max, clock: ContinuousClock()))
    let meter = OutputMeter(receiver)
    for time in times { receiver.publish(.fix(Fix(time: UTCTime(nanosecondsSinceMidnight: Int64((time * 1e9).rounded()))))) }
    return meter.measurement
  }

  /// 18 Hz said to the hundredth of a second (hhmmss.ss): steps of 50 and 60 ms, whose median
  /// would say 16.7 or 20 Hz.
  @Test func eighteenHertzInHundredthsIsEighteenHertz() throws {
    let times = (0..<19).map { (Double($0) / 18 * 100).rounded(.down) / 100 }
    let rate = try #require(Self.measured(times).rate)
    #expect(abs(rate - 18) < 0.5, "\(rate)")
  }

  @Test func aMissedEpochDoesNotHalveTheRate() throws {
    let times = [0.0, 0.2, 0.4, 0.8, 1.0, 1.2]
    let rate = try #require(Self.measured(times).rate)
    #expect(abs(rate - 5) < 0.01, "\(rate)")
  }

  @Test func fewerThanThreeEpochsHaveNoRate() {
    #expect(Self.measured([0, 1]).rate == nil)
  }
}
