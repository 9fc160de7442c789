import Foundation
import NMEA
import NMEASimulation
import Testing

/// The simulated RTK rover claims no more than its corrections give it: without them a GPS
/// fix good to a metre or two (it sent RTK fixed's centimetre GST with GGA quality 1, shown as
/// "±0.0 m"), with them RTK fixed's centimetres.
struct RTKRoverTests {
  final class Clock: @unchecked Sendable {
    var now = ContinuousClock.now
  }

  static func fix(through rover: RTKResponder) -> Fix? {
    var decoder = FixDecoder()
    for epoch in Simulation(route: Route.demoDrive.lasting(5), profile: .rtk).epochs() {
      decoder.append(rover.filter(epoch.bytes))
    }
    decoder.finish()
    var last: Fix?
    while let fix = decoder.next() { last = fix }
    return last
  }

  @Test func withoutCorrectionsItIsAPlainGPSFix() throws {
    let fix = try #require(Self.fix(through: RTKResponder()))
    #expect(fix.quality == .gps)
    #expect((fix.horizontalAccuracy ?? 0) >= 1, "\(String(describing: fix.horizontalAccuracy))")
    #expect((fix.errorEstimate?.semiMajor ?? 0) >= 1)
  }

  @Test func withCorrectionsForSixSecondsItIsRTKFixedToCentimetres() throws {
    let clock = Clock()
    var rover = RTKResponder(now: { clock.now })
    for frame in RTCMWriter(latitude: 47.3769, longitude: 8.5417, height: 457).frames(secondOfWeek: 1) { rover.take(frame, at: clock.now) }
    clock.now = clock.now.advanced(by: .seconds(4))
    for frame in RTCMWriter(latitude: 47.3769, longitude: 8.5417, height: 457).frames(secondOfWeek: 5) { rover.take(frame, at: clock.now) }
    clock.now = clock.now.advanced(by: .seconds(3))
    let fix = try #require(Self.fix(through: rover))
    #expect(fix.quality == .rtkFixed)
    #expect((fix.horizontalAccuracy ?? 1) < 0.1, "\(String(describing: fix.horizontalAccuracy))")
  }
}
