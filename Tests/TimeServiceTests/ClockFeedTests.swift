import Foundation
import NMEA
import Plumbing
import TestHelpers
import Testing
import TimeService
import Transports

/// A Swift program feeds chrony without the command line: the README's two calls, a
/// `ClockFeed` and `start(from:)`, with a live receiver on a pty stamped from this machine's
/// clock, and chrony's socket a stand-in that records each datagram.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ClockFeedTests {
  /// A jump or a date before this release stops the feeding, and the state says so at once,
  /// until the next sample is sent (it said "feeding" through an old date until then).
  @Test func aRefusedTimeIsNotReportedAsFeeding() throws {
    let feed = try ClockFeed(ClockFeed.Outputs())
    /// A serial sample of second `second` (of 2026), arriving 100 ms after it.
    func sample(_ second: Int64) -> TimeSample {
      let reference = (1_790_000_000 + second) * 1_000_000_000
      return TimeSample(
        kind: .serial, reference: UTCTimestamp(nanosecondsSince1970: reference),
        system: UTCTimestamp(nanosecondsSince1970: reference + 100_000_000))
    }
    #expect(!feed.state.feeding)
    feed.take(sample(0))
    #expect(feed.state.feeding)
    feed.note(.beforeRelease(UTCDate(year: 2024, month: 5, day: 1)))
    #expect(!feed.state.feeding)
    feed.take(sample(1))
    #expect(feed.state.feeding)
    feed.note(.jumped(by: 36_000))
    #expect(!feed.state.feeding)
    feed.note(.resumed(.backInLine))
    #expect(feed.state.feeding)
  }

  /// A regular file where chrony's socket should be is said once, as what it is: the send
  /// that Linux refuses as it refuses a socket nobody reads once also said "refused: the
  /// socket is there", after "that is not a socket".
  @Test func aFileWhereTheSocketShouldBeIsSaidOnceAsWhatItIs() throws {
    let path = scratchDirectory("gpsbridge-chrony-file").appendingPathComponent("chrony.sock").path
    _ = FileManager.default.createFile(atPath: path, contents: Data("not a socket".utf8))
    let said = Locked<[String]>([])
    let socket = try ChronySocket(path: path) { health in said.withLock { $0.append("\(health)") } }
    for second in 0..<5 {
      let reference = (1_790_000_000 + Int64(second)) * 1_000_000_000
      socket.send(
        TimeSample(
          kind: .serial, reference: UTCTimestamp(nanosecondsSince1970: reference),
          system: UTCTimestamp(nanosecondsSince1970: reference + 100_000_000)))
    }
    #expect(said.withLock { $0 } == ["that is not a socket (chrony makes it: name the path of chrony.conf's 'refclock SOCK' line)"])
  }

  @Test func theREADMEsTwoCallsFeedChronyFromAReceiver() async throws {
    let directory = scratchDirectory("gpsbridge-clock-feed")
    let socketPath = directory.appendingPathComponent("chrony.sock").path
    let chrony = try StandInChronySocket(path: socketPath)
    let pty = try PseudoTerminal()
    defer { pty.unplug() }
    let receiver = Receiver(SerialSource(path: pty.slavePath, baudRate: .fixed(115_200)))
    let said = Locked<[String]>([])

    let feed = try ClockFeed(ClockFeed.Outputs(chrony: socketPath), said: { message in said.withLock { $0.append(message) } })
    let feeding = try feed.start(from: receiver, said: { message in said.withLock { $0.append(message) } })
    let running = Task(executorPreference: DedicatedExecutor.own()) { await receiver.run() }
    #expect(await pty.waitUntilHeld())
    // Epochs four times a second until chrony has three samples (one a second at most), and
    // the feed is feeding: on a loaded machine two epochs read late in a row look like a step
    // and hold the feed until the next one in line (a loaded clean-clone run ended on such a
    // hold), which these epochs, the system clock's own time, soon are.
    try await blocking {
      pty.stream(every: 0.25, for: 60, until: { chrony.count >= 3 && feed.state.feeding }) {
        WrongTimeTests.epoch(WrongTimeTests.Phase(seconds: 0))
      }
    }
    feeding.cancel()
    running.cancel()
    await running.value
    let samples = chrony.stop()

    #expect(samples.count >= 3, "said: \(said.withLock { $0 })")
    #expect(samples.allSatisfy { abs($0.offset) < 1 }, "\(samples.map(\.offset))")
    #expect(feed.state.feeding)
    #expect(feed.chronyCounts.map { $0.sent >= 3 } == true)
    #expect(said.withLock { $0 }.contains("chrony's socket \(socketPath): chrony takes the samples."), "\(said.withLock { $0 })")
  }
}
