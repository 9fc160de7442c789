import GPSD
import SourceStatus
import Testing

@testable import Transports

/// One connection to gpsd judged as the pure state machine it is: reports and tick times in,
/// problems and staleness out. The times are the test's own; nothing waits.
@Suite struct GPSDSessionWatchTests {
  let start = ContinuousClock.now
  static let timing = GPSDSessionWatch.Timing(silenceTimeout: .seconds(5), noFixTimeout: .seconds(10))

  func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int64(seconds * 1000)) }
  func watch(watchesNMEA: Bool = false) -> GPSDSessionWatch {
    GPSDSessionWatch(address: "127.0.0.1:2947", timing: Self.timing, watchesNMEA: watchesNMEA, now: start)
  }
  func report(_ line: String) throws -> GPSDReport { try GPSDReport(line: Array(line.utf8)) }

  var devices: String {
    #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","activated":"2024-05-01T10:00:00.000Z"}]}"#
  }

  @Test func withoutADeviceItSaysSoOnceAndADeviceThatComesGetsItsOwnTime() throws {
    var watch = watch()
    #expect(watch.tick(now: at(9.9)) == (nil, nil))
    #expect(watch.tick(now: at(10)) == (nil, .gpsdHasNoDevice(address: "127.0.0.1:2947")))
    #expect(watch.tick(now: at(11)) == (nil, nil))
    #expect(watch.report(try report(devices), now: at(12)) == nil)
    // The device came at 12 s, noticed at the tick of 12.25 s: no fix is said 10 s after that.
    #expect(watch.tick(now: at(12.25)) == (nil, nil))
    #expect(watch.tick(now: at(16)) == (nil, nil))
    _ = watch.report(try report(devices), now: at(20))
    #expect(watch.tick(now: at(22.2)) == (nil, nil))
    #expect(watch.tick(now: at(22.25)) == (nil, .gpsdHasNoFix(address: "127.0.0.1:2947", seconds: 10)))
  }

  @Test func aDeviceThatFallsSilentMakesTheConnectionStale() throws {
    var watch = watch()
    _ = watch.report(try report(devices), now: at(1))
    watch.fix(hasPosition: true, now: at(2))
    #expect(watch.tick(now: at(6.9)).stale == nil)
    #expect(watch.tick(now: at(7)).stale == "no report for 5.0 seconds")
    #expect(watch.hadFix)
  }

  @Test func gpsdsErrorsAreSaidAndNMEAMakesNoNoFixComplaint() throws {
    var watch = watch(watchesNMEA: true)
    #expect(
      watch.report(try report(#"{"class":"ERROR","message":"Can't open /dev/ttyS9."}"#), now: at(1))
        == .gpsdError(address: "127.0.0.1:2947", message: "Can't open /dev/ttyS9."))
    _ = watch.report(try report(devices), now: at(2))
    _ = watch.report(.unknown("NMEA"), now: at(11))
    #expect(watch.tick(now: at(12)) == (nil, nil))
  }
}
