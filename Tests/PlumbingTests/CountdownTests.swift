import Plumbing
import Testing

/// An event handed to several outlets is handled once, when the last of them has it: never
/// before, never twice.
@Suite struct CountdownTests {
  final class Calls: @unchecked Sendable {
    let count = Locked(0)
    var value: Int { count.withLock { $0 } }
  }

  @Test func theActionRunsOnceWhenTheLastPartIsDone() {
    let calls = Calls()
    let countdown = Countdown(1) { calls.count.withLock { $0 += 1 } }
    countdown.add(2)
    countdown.done()
    countdown.done()
    #expect(calls.value == 0)
    countdown.done()
    #expect(calls.value == 1)
    // After the end: nothing added, nothing run again.
    countdown.add()
    countdown.done()
    #expect(calls.value == 1)
  }

  @Test func noPartsIsDoneAtOnce() {
    let calls = Calls()
    _ = Countdown(0) { calls.count.withLock { $0 += 1 } }
    #expect(calls.value == 1)
  }

  @Test func partsDoneFromManyThreadsEndItOnce() async {
    let calls = Calls()
    let countdown = Countdown(1) { calls.count.withLock { $0 += 1 } }
    countdown.add(1000)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<1000 { group.addTask { countdown.done() } }
    }
    #expect(calls.value == 0)
    countdown.done()
    #expect(calls.value == 1)
  }
}
