import Foundation
import GPSDServer
import Plumbing
import StatusService
import TestHelpers
import Testing
import Transports

/// The watchdog is pinged while gpsbridge itself is healthy, and only then: a receiver's
/// queue frozen, or the gpsd server's, stops the pings until it turns again; a receiver that
/// says nothing at all is no stall of ours.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct WatchdogTests {
  /// A receiver on a pseudo-terminal that sends nothing (its queue turns all the same),
  /// served and followed, with a watchdog over them.
  final class Rig: @unchecked Sendable {
    let terminal: PseudoTerminal
    let receiver: Receiver
    let gpsd: GPSDServer
    let status: StatusServer
    let watchdog: Watchdog
    private let serving: Task<Void, Never>

    init() throws {
      terminal = try PseudoTerminal()
      receiver = ReceiverSource.serial(path: terminal.slavePath, baudRate: .fixed(9600)).receiver
      var configuration = GPSDServer.Configuration()
      configuration.port = 0
      gpsd = GPSDServer(configuration: configuration)
      try gpsd.start()
      status = StatusServer(StatusServer.Configuration(), gpsd: gpsd)
      watchdog = Watchdog(status: status, gpsd: gpsd)
      let (receiver, gpsd, status, device) = (receiver, gpsd, status, terminal.slavePath)
      serving = Task(executorPreference: DedicatedExecutor.own()) {
        await status.following(receiver, device: device) { await gpsd.serve(receiver, device: device) }
      }
    }

    deinit {
      serving.cancel()
      gpsd.stop()
    }

    func problem() async -> String? {
      await watchdog.problem()
    }
  }

  @Test func aSilentReceiverIsNoProblemButAFrozenQueueIs() async throws {
    let rig = try Rig()
    #expect(await eventually { rig.receiver.lastTurn != nil })
    // Nothing from the receiver, no fix: not gpsbridge's failure.
    #expect(await rig.problem() == nil)
    // Frozen four times the watchdog's 3 s, so that a loaded machine's test still asks while
    // it is (a loaded full run asked only after a 6 s freeze had ended).
    #expect(rig.receiver.freezeSessionForTesting(.seconds(12)))
    var problem: String?
    _ = await eventually(every: .milliseconds(250)) {
      problem = await rig.problem()
      return problem != nil
    }
    #expect(problem?.contains("the queue reading \(rig.terminal.slavePath) has not turned for") == true, "\(problem ?? "none")")
    // It turns again: healthy again.
    #expect(await eventually(every: .milliseconds(250)) { await rig.problem() == nil })
  }

  @Test func aFrozenServerStopsThePingsUntilItTurnsAgain() async throws {
    let rig = try Rig()
    let pings = Watched<[ContinuousClock.Instant]>([])
    let said = Watched<[(at: ContinuousClock.Instant, message: String)]>([])
    let running = Task(executorPreference: DedicatedExecutor.own()) {
      await rig.watchdog.run(
        every: .milliseconds(200), notify: { if $0 == "WATCHDOG=1" { pings.withLock { $0.append(.now) } } },
        said: { message in said.withLock { $0.append((.now, message)) } })
    }
    defer { running.cancel() }
    #expect(await pings.until { $0.count >= 3 })
    rig.gpsd.freezeForTesting(.seconds(5))
    #expect(await said.until { $0.contains { $0.message.contains("healthy again") } })
    let saidNow = said.withLock { $0 }
    let stopped = try #require(saidNow.first { $0.message.contains("the watchdog is not pinged: the gpsd server's queue") })
    let resumed = try #require(saidNow.first { $0.message.contains("healthy again") })
    #expect(saidNow.filter { $0.message.contains("not pinged") }.count == 1, "\(saidNow.map(\.message))")
    // Between the two, no ping went out (the times the watchdog itself noted, whatever this
    // test's own pace on a busy machine); and after, they go on.
    let whileFrozen = pings.withLock { $0 }.filter { $0 > stopped.at && $0 < resumed.at }
    #expect(whileFrozen.isEmpty, "pinged \(whileFrozen.count) times while frozen")
    #expect(await pings.until { $0.contains { $0 > resumed.at } })
  }
}
