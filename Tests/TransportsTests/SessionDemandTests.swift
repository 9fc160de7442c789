import Foundation
import NMEA
import NMEASimulation
import Plumbing
import TestHelpers
import Testing
import Transports

/// A receiver's session runs by its listeners' demand, once for all of them: one of them
/// leaving never restarts what the others hear, and the session ends when the last one does.
@Suite(.timeLimit(.minutes(2))) struct SessionDemandTests {
  static func capture(epochs: Int) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("gpsbridge-demand-\(UUID().uuidString).nmea").path
    let bytes = Simulation(route: Route.demoDrive.lasting(600), profile: .ublox, rate: 1).epochs().prefix(epochs).flatMap(\.bytes)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func oneListenerLeavingMidReplayDoesNotReplayItAgainForTheOthers() async throws {
    let path = try Self.capture(epochs: 40)
    defer { unlink(path) }
    let receiver = Receiver(ReplaySource(capture: .file(path), speed: .multiplied(by: 20), clock: ContinuousClock()))
    let events = receiver.events()
    let first = Task { await receiver.run() }
    let second = Task { await receiver.run() }
    var times: [UTCTime] = []
    for await event in events {
      switch event {
      case .fix(let fix):
        times.append(fix.time)
        // A quarter of the way in, the first user leaves.
        if times.count == 10 { first.cancel() }
      case .status(.ended): break
      default: continue
      }
      if case .status(.ended) = event { break }
    }
    await first.value
    await second.value
    #expect(times.count == 40, "every epoch once: \(times.count)")
    #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "never from the start again")
  }

  @Test func theSessionStartsWithTheFirstWantAndEndsWithTheLast() async throws {
    let path = try Self.capture(epochs: 600)
    defer { unlink(path) }
    let receiver = Receiver(ReplaySource(capture: .file(path), speed: .realTime, clock: ContinuousClock()))
    let heard = Locked<[ReceiverEvent]>([])
    // Wanting nothing only hears: nothing starts.
    let passive = receiver.listen(wanting: []) { event in heard.withLock { $0.append(event) } }
    try await Task.sleep(for: .milliseconds(300))
    #expect(heard.withLock { $0 }.isEmpty)
    // Wanting fixes starts the session: what every listener hears (its flushes) reaches the
    // passive one too, though not the fixes.
    let wanting = receiver.listen(wanting: .fixes) { _ in }
    #expect(await eventually { heard.withLock { $0 }.count >= 2 })
    #expect(!heard.withLock { $0 }.contains { if case .fix = $0 { true } else { false } })
    // The last want gone, the session stops and says nothing more.
    receiver.stopListening(wanting)
    await receiver.sessionClosed()
    let count = heard.withLock { $0.count }
    try await Task.sleep(for: .milliseconds(1500))
    #expect(heard.withLock { $0.count } == count)
    receiver.stopListening(passive)
  }
}
