import SourceStatus
import Testing

@testable import Transports

/// What a live source says and does between connections, as the pure state machine it is:
/// outcomes and session lengths in, events and the next step out.
@Suite struct ReconnectionTests {
  let gone = SourceError.noDevice(path: "/dev/ttyACM0")

  @Test func aProblemIsSaidOnceWhileItLastsAndEachAttemptWaitsLonger() {
    var reconnection = Reconnection()
    #expect(reconnection.openFailed(gone, permanent: false) == ([.failed(gone)], .wait(failures: 1)))
    #expect(reconnection.openFailed(gone, permanent: false) == ([], .wait(failures: 2)))
    #expect(reconnection.opened() == [.authorization(.authorizedAlways)])
    // The same problem after a success is news again.
    #expect(reconnection.openFailed(gone, permanent: false).say == [.failed(gone)])
  }

  @Test func aPermissionProblemSaysDeniedFirstAndAPermanentOneStops() {
    var reconnection = Reconnection()
    let denied = SourceError.permissionDenied(path: "/dev/ttyACM0")
    #expect(reconnection.openFailed(denied, permanent: false) == ([.authorization(.denied), .failed(denied)], .wait(failures: 1)))
    #expect(reconnection.openFailed(denied, permanent: true) == ([.stopped(denied)], .stop))
  }

  @Test func aLossPausesAndResumesAtTheNextOpen() {
    var reconnection = Reconnection()
    _ = reconnection.opened()
    #expect(reconnection.lost(gone, hadFix: true, lasted: .seconds(30)) == ([.paused(gone)], .retryNow))
    #expect(reconnection.opened() == [.authorization(.authorizedAlways), .resumed])
    #expect(reconnection.opened() == [.authorization(.authorizedAlways)])
  }

  @Test func quickLossesWithoutAFixCountAsFailedAttemptsFromTheSecondOn() {
    var reconnection = Reconnection()
    _ = reconnection.opened()
    #expect(reconnection.lost(gone, hadFix: false, lasted: .milliseconds(200)).next == .retryNow)
    _ = reconnection.opened()
    #expect(reconnection.lost(gone, hadFix: false, lasted: .milliseconds(200)).next == .wait(failures: 1))
    _ = reconnection.opened()
    #expect(reconnection.lost(gone, hadFix: false, lasted: .milliseconds(200)).next == .wait(failures: 2))
    // A quick session that gave a fix (a replug mid-burst) is no failure; nor is a long one.
    _ = reconnection.opened()
    #expect(reconnection.lost(gone, hadFix: true, lasted: .milliseconds(200)).next == .retryNow)
    _ = reconnection.opened()
    #expect(reconnection.lost(gone, hadFix: false, lasted: .milliseconds(200)).next == .retryNow)
  }

  @Test func theBackoffDoublesUpToItsMaximum() {
    let delays = (1...6).map { backoff(after: $0, minimum: .milliseconds(50), maximum: .seconds(1)) }
    #expect(delays == [.milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1)])
  }
}
