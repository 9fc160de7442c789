import GPSLocationTestSupport
import Plumbing
import Testing

@Suite(.timeLimit(.minutes(3))) struct BroadcasterTests {
  @Test func everySubscriberGetsEveryLaterElementInOrder() async {
    let broadcaster = Broadcaster<Int>()
    let first = broadcaster.subscribe()
    let second = broadcaster.subscribe()
    for value in 0..<100 { broadcaster.yield(value) }
    broadcaster.finish()
    var a: [Int] = [], b: [Int] = []
    for await value in first { a.append(value) }
    for await value in second { b.append(value) }
    #expect(a == Array(0..<100) && b == Array(0..<100))
  }

  @Test func lateSubscribersSeeOnlyWhatFollows() async {
    let broadcaster = Broadcaster<Int>()
    broadcaster.yield(1)
    let late = broadcaster.subscribe()
    broadcaster.yield(2)
    broadcaster.finish()
    var seen: [Int] = []
    for await value in late { seen.append(value) }
    #expect(seen == [2])
  }

  @Test func endingOneSubscriptionLeavesTheOthers() async {
    let broadcaster = Broadcaster<Int>()
    let kept = broadcaster.subscribe()
    do {
      let dropped = broadcaster.subscribe()
      let task = Task { for await _ in dropped { break } }
      broadcaster.yield(0)
      await task.value
    }
    // The ended stream is unregistered once its iterator is gone.
    for _ in 0..<100 where broadcaster.subscriberCount > 1 { await Task.yield() }
    broadcaster.yield(1)
    broadcaster.finish()
    var seen: [Int] = []
    for await value in kept { seen.append(value) }
    #expect(seen == [0, 1])
  }

  @Test func aSlowSubscriberKeepsOnlyTheNewestAndHoldsNobodyBack() async {
    let broadcaster = Broadcaster<Int>(bufferLimit: 10)
    let slow = broadcaster.subscribe()
    for value in 0..<1000 { broadcaster.yield(value) }
    broadcaster.finish()
    var seen: [Int] = []
    for await value in slow { seen.append(value) }
    #expect(seen == Array(990..<1000))
  }

  @Test func waitForRoomReturnsOnceTheReaderCatchesUp() async {
    let broadcaster = Broadcaster<Int>(bufferLimit: 10, roomTimeout: .seconds(30))
    let stream = broadcaster.subscribe()
    for value in 0..<8 { broadcaster.yield(value) }  // more than half the buffer unread
    let reader = Task {
      var seen: [Int] = []
      for await value in stream {
        seen.append(value)
        if seen.count == 8 { break }
      }
      return seen
    }
    await broadcaster.waitForRoom()
    #expect(await reader.value == Array(0..<8))
  }

  @Test func waitForRoomGivesUpOnAReaderThatStopped() async {
    let clock = TestClock()
    let broadcaster = Broadcaster<Int>(bufferLimit: 10, roomTimeout: .milliseconds(200), clock: clock)
    let stream = broadcaster.subscribe()
    for value in 0..<8 { broadcaster.yield(value) }
    let waiting = Task { await broadcaster.waitForRoom() }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(199))
    #expect(clock.sleeperCount == 1, "still waiting before the timeout")
    clock.advance(by: .milliseconds(1))
    await waiting.value
    _ = stream
  }

  @Test func aBatchReaderTakesEverythingReadyInOneRead() async {
    let broadcaster = Broadcaster<Int>()
    let subscription = broadcaster.subscribeBatches()
    for value in 0..<5 { broadcaster.yield(value) }
    broadcaster.yield(contentsOf: [5, 6, 7])
    var batch: [Int] = []
    #expect(await subscription.next(into: &batch))
    #expect(batch == Array(0..<8))
  }

  @Test func aWaitingBatchReaderGetsTheNextYieldAtOnce() async {
    let broadcaster = Broadcaster<Int>()
    let subscription = broadcaster.subscribeBatches()
    let reader = Task {
      var batch: [Int] = []
      var seen: [[Int]] = []
      while await subscription.next(into: &batch) { seen.append(batch) }
      return seen
    }
    // Each yield comes once the reader is parked, so the yield has to wake it.
    while broadcaster.waitingReaderCount == 0 { await Task.yield() }
    broadcaster.yield(contentsOf: [1, 2])
    while broadcaster.waitingReaderCount == 0 { await Task.yield() }
    broadcaster.yield(3)
    broadcaster.finish()
    let seen = await reader.value
    #expect(seen.flatMap { $0 } == [1, 2, 3])
    #expect(seen.first == [1, 2])
  }

  @Test func finishingLetsReadersTakeWhatIsQueuedFirst() async {
    let broadcaster = Broadcaster<Int>()
    let subscription = broadcaster.subscribeBatches()
    broadcaster.yield(contentsOf: [1, 2, 3])
    broadcaster.finish()
    var batch: [Int] = []
    #expect(await subscription.next(into: &batch) && batch == [1, 2, 3])
    #expect(await subscription.next(into: &batch) == false)
    let late = broadcaster.subscribeBatches()
    #expect(await late.next(into: &batch) == false)
  }

  @Test func cancellingTheReadingTaskEndsOnlyItsSubscription() async {
    let broadcaster = Broadcaster<Int>()
    let kept = broadcaster.subscribe()
    let cancelled = broadcaster.subscribe()
    let reader = Task {
      var count = 0
      for await _ in cancelled { count += 1 }
      return count
    }
    broadcaster.yield(1)
    // The reader takes 1 and waits for more.
    while broadcaster.waitingReaderCount == 0 { await Task.yield() }
    reader.cancel()
    #expect(await reader.value == 1)  // the waiting read was woken by the cancellation
    for _ in 0..<100 where broadcaster.subscriberCount > 1 { await Task.yield() }
    #expect(broadcaster.subscriberCount == 1)
    broadcaster.yield(2)
    broadcaster.finish()
    var seen: [Int] = []
    for await value in kept { seen.append(value) }
    #expect(seen == [1, 2])
  }

  @Test func aSlowBatchReaderLosesTheOldestButNeverTheOrder() async {
    let broadcaster = Broadcaster<Int>(bufferLimit: 10)
    let subscription = broadcaster.subscribeBatches()
    broadcaster.yield(contentsOf: Array(0..<25))
    broadcaster.yield(contentsOf: [25, 26])
    var batch: [Int] = []
    #expect(await subscription.next(into: &batch))
    #expect(batch == Array(17..<27))
  }

  @Test func oneBatchLargerThanTheLimitIsNeverCut() async {
    // As a perform of 10,000 regions yields 20,000 actions at once.
    let broadcaster = Broadcaster<Int>(bufferLimit: 10)
    let subscription = broadcaster.subscribeBatches()
    broadcaster.yield(contentsOf: [-2, -1])
    broadcaster.yield(contentsOf: Array(0..<25))
    var batch: [Int] = []
    #expect(await subscription.next(into: &batch))
    #expect(batch == Array(0..<25))
  }
}
