import Plumbing
import Testing

/// The MQTT and NTRIP clients wait alike between sessions: a second, doubling while nothing
/// works, short again after a session that worked; each reason said once while it repeats.
struct ReconnectPolicyTests {
  @Test func theWaitDoublesUpToTheLongestAndIsShortAgainAfterASessionThatWorked() {
    var policy = ReconnectPolicy(longest: .seconds(10))
    var waits: [Duration] = []
    for _ in 0..<6 { waits.append(policy.ended(reason: "refused", worked: false).wait) }
    #expect(waits == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10)])
    #expect(policy.ended(reason: "closed", worked: true).wait == .seconds(1))
    #expect(policy.ended(reason: "closed", worked: false).wait == .seconds(2))
  }

  @Test func aReasonIsSaidOnceWhileItRepeats() {
    var policy = ReconnectPolicy(longest: .seconds(60))
    let said = ["refused", "refused", "refused", "no answer", "refused"].map { policy.ended(reason: $0, worked: false).say }
    #expect(said == [true, false, false, true, true])
  }

  @Test func aLongestShorterThanASecondIsKeptFromTheFirstWait() {
    var policy = ReconnectPolicy(longest: .milliseconds(100))
    #expect(policy.ended(reason: "refused", worked: false).wait == .milliseconds(100))
  }
}
