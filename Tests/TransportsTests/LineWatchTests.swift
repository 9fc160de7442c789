import SourceStatus
import Testing

@testable import Transports

/// Autobaud and silence detection as the pure state machine they are: counters and times in,
/// what to do out. The times are the test's own; nothing waits.
@Suite struct LineWatchTests {
  static let timing = LineWatch.Timing(probeWindow: .milliseconds(1500), silenceTimeout: .seconds(5))
  let start = ContinuousClock.now

  func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

  func watch(_ baudRate: BaudRate = .automatic, knownRate: Int? = nil) -> LineWatch {
    LineWatch(path: "/dev/ttyUSB0", baudRate: baudRate, knownRate: knownRate, timing: Self.timing, now: start)
  }

  @Test func autobaudTriesEachRateForAProbeWindowAndKeepsTheFirstWithTwoSentences() {
    var watch = watch()
    #expect(watch.rate == BaudRate.candidates[0])
    #expect(watch.tick(.init(), now: at(1499)).isEmpty)
    #expect(watch.tick(.init(), now: at(1500)) == [.probe(rate: BaudRate.candidates[1])])
    // One sentence proves nothing; two do.
    #expect(watch.tick(.init(sentences: 1, lastByte: at(1700), lastSentence: at(1700)), now: at(1750)).isEmpty)
    #expect(
      watch.tick(.init(sentences: 2, lastByte: at(1900), lastSentence: at(1900)), now: at(2000)) == [.settle(rate: BaudRate.candidates[1])])
    #expect(watch.knownRate == BaudRate.candidates[1])
    #expect(!watch.probing)
  }

  @Test func aFixProvesTheRateAtOnce() {
    var watch = watch()
    #expect(watch.tick(.init(fixes: 1, lastByte: at(10)), now: at(250)) == [.settle(rate: BaudRate.candidates[0])])
  }

  @Test func theRateFoundLastTimeIsTriedFirst() {
    let watch = watch(knownRate: 115_200)
    #expect(watch.rate == 115_200)
    #expect(watch.candidates.count == BaudRate.candidates.count)
  }

  @Test func afterTheWholeListItSaysSoAndGoesOn() {
    var watch = watch()
    var actions: [LineWatch.Action] = []
    for step in 1...BaudRate.candidates.count { actions += watch.tick(.init(), now: at(1500 * step)) }
    let seconds = 1500 * BaudRate.candidates.count / 1000
    #expect(actions.contains(.fail(.noNMEAAtAnyRate(path: "/dev/ttyUSB0", seconds: seconds))))
    #expect(actions.last == .probe(rate: BaudRate.candidates[0]))
  }

  @Test func silenceIsSaidOnceUntilBytesComeAgain() {
    var watch = watch(.fixed(9600), knownRate: 9600)
    let silent = LineWatch.Action.fail(.silentDevice(path: "/dev/ttyUSB0", seconds: 5))
    let talking = LineWatch.Counters(sentences: 10, lastByte: at(1000), lastSentence: at(1000))
    #expect(watch.tick(talking, now: at(5999)).isEmpty)
    #expect(watch.tick(talking, now: at(6000)) == [silent])
    #expect(watch.tick(talking, now: at(9000)).isEmpty)
    let again = LineWatch.Counters(sentences: 11, lastByte: at(9100), lastSentence: at(9100))
    #expect(watch.tick(again, now: at(9200)).isEmpty)
    #expect(watch.tick(again, now: at(14_100)) == [silent])
  }

  @Test func bytesWithoutSentencesStartAutobaudOverOrAreSaidAtAFixedRate() {
    let garbage = LineWatch.Counters(sentences: 2, lastByte: at(7000), lastSentence: at(1000))
    var automatic = watch()
    _ = automatic.tick(.init(sentences: 2, lastByte: at(900), lastSentence: at(1000)), now: at(1000))
    #expect(automatic.tick(garbage, now: at(6000)) == [.probe(rate: BaudRate.candidates[0])])
    #expect(automatic.probing && automatic.knownRate == nil)

    var fixed = watch(.fixed(4800), knownRate: 4800)
    let wrongRate = LineWatch.Action.fail(.noNMEAAtRate(path: "/dev/ttyUSB0", seconds: 5))
    #expect(fixed.tick(garbage, now: at(7100)) == [wrongRate])
    #expect(fixed.tick(garbage, now: at(7200)).isEmpty)
    #expect(fixed.rate == 4800)
  }

  /// Garbage flowing at a settled rate (bytes buffered at another speed made the first probe
  /// look right): autobaud starts over after a couple of kilobytes without a sentence, not
  /// after the silence time-out's seconds.
  @Test func garbageFlowingAtASettledRateStartsAutobaudOverSoon() {
    var watch = watch()
    _ = watch.tick(.init(sentences: 2, lastByte: at(900), lastSentence: at(1000)), now: at(1000))
    #expect(!watch.probing)
    // 1.5 s later, 2.5 kB and no sentence.
    let flowing = LineWatch.Counters(sentences: 2, lastByte: at(2400), lastSentence: at(1000), bytesSinceFrame: 2500)
    #expect(watch.tick(flowing, now: at(2500)) == [.probe(rate: BaudRate.candidates[0])])
    // A big binary frame's worth in a moment is no garbage.
    var busy = self.watch()
    _ = busy.tick(.init(sentences: 2, lastByte: at(900), lastSentence: at(1000)), now: at(1000))
    #expect(busy.tick(.init(sentences: 2, lastByte: at(1300), lastSentence: at(1000), bytesSinceFrame: 1500), now: at(1400)).isEmpty)
  }
}
