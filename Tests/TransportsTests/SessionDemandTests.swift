import Foundation
import NMEA
import NMEASimulation
import Plumbing
import SourceStatus
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

  /// A source that counts its sessions, and how many run at once.
  final class CountingSource: ByteSource {
    let counts = Watched((sessions: 0, running: 0, mostRunning: 0))
    var initialAuthorization: AuthorizationStatus { .authorizedAlways }
    func isPresent() async -> Bool { true }
    func checkAuthorization() async -> AuthorizationStatus { .authorizedAlways }
    func run(for receiver: Receiver) async {
      counts.withLock { counts in
        counts.sessions += 1
        counts.running += 1
        counts.mostRunning = max(counts.mostRunning, counts.running)
      }
      await untilCancelled()
      counts.withLock { $0.running -= 1 }
    }
  }

  @Test func listenersArrivingAtOnceStartOneSession() async throws {
    let source = CountingSource()
    let receiver = Receiver(source)
    // Sixty-four listeners from as many tasks at once, then all gone, five times over.
    for round in 1...5 {
      let listeners = await withTaskGroup(of: Receiver.Listener.self) { group in
        for _ in 0..<64 { group.addTask { receiver.listen(wanting: .fixes) { _ in } } }
        return await group.reduce(into: []) { $0.append($1) }
      }
      #expect(await source.counts.until { $0.sessions == round })
      for listener in listeners { receiver.stopListening(listener) }
      await receiver.sessionClosed()
      #expect(source.counts.withLock { $0.running } == 0, "the last one gone, the session ended")
    }
    #expect(source.counts.withLock { $0.mostRunning } == 1, "never two sessions at once")
    #expect(source.counts.withLock { $0.sessions } == 5)
  }

  /// A source that says it ended and then takes its time to return (closing a device,
  /// restoring its settings), until `closed` is set; later sessions say so too and then run
  /// until they are stopped.
  final class SlowToCloseSource: ByteSource {
    let sessions = Watched(0)
    let endsSaid = Watched(0)
    let closed = Watched(false)
    var initialAuthorization: AuthorizationStatus { .authorizedAlways }
    func isPresent() async -> Bool { true }
    func checkAuthorization() async -> AuthorizationStatus { .authorizedAlways }
    func run(for receiver: Receiver) async {
      let session = sessions.withLock { sessions in
        sessions += 1
        return sessions
      }
      receiver.publish(.status(.ended(.endOfCapture(summary: "session \(session) ended"))))
      endsSaid.withLock { $0 += 1 }
      if session == 1 { _ = await closed.until { $0 } } else { await untilCancelled() }
    }
  }

  /// A want declared after the session said it ended, but before it returned, heard nothing
  /// of that end: the next session starts for it (it was left with none, and a program that
  /// waited for its events waited for ever), while whoever waited before hears the end.
  @Test func aWantDeclaredAsTheSessionEndsStartsTheNext() async throws {
    let source = SlowToCloseSource()
    let receiver = Receiver(source)
    let first = Task { await receiver.run() }
    #expect(await source.endsSaid.until { $0 == 1 })
    let late = Watched<[ReceiverEvent]>([])
    let listener = receiver.listen(wanting: .fixes) { event in late.withLock { $0.append(event) } }
    defer { receiver.stopListening(listener) }
    source.closed.withLock { $0 = true }
    await first.value
    #expect(await source.sessions.until { $0 == 2 })
    #expect(await late.until { $0.contains(.status(.ended(.endOfCapture(summary: "session 2 ended")))) })
  }

  /// A want declared as the session ends, and taken back before it has returned, starts
  /// nothing: the listener that wanted from the start heard the end, and the source is not
  /// started again for it.
  @Test func aWantTakenBackBeforeTheSessionReturnsStartsNothing() async throws {
    let source = SlowToCloseSource()
    let receiver = Receiver(source)
    let staying = receiver.listen(wanting: .fixes) { _ in }
    defer { receiver.stopListening(staying) }
    let ended = Task { await receiver.waitForEnd() }
    #expect(await source.endsSaid.until { $0 == 1 })
    let late = receiver.listen(wanting: .fixes) { _ in }
    receiver.stopListening(late)
    source.closed.withLock { $0 = true }
    // The wait ends once the session has returned and said so: by then a next session would
    // have been started (and would run until stopped).
    await ended.value
    #expect(!receiver.hasOpenSession)
  }

  @Test func theSessionStartsWithTheFirstWantAndEndsWithTheLast() async throws {
    let path = try Self.capture(epochs: 600)
    defer { unlink(path) }
    let receiver = Receiver(ReplaySource(capture: .file(path), speed: .realTime, clock: ContinuousClock()))
    let heard = Watched<[ReceiverEvent]>([])
    // Wanting nothing only hears: nothing starts.
    let passive = receiver.listen(wanting: []) { event in heard.withLock { $0.append(event) } }
    #expect(!receiver.hasOpenSession)  // (a session starts as a want is declared, or not at all)
    #expect(heard.withLock { $0 }.isEmpty)
    // Wanting fixes starts the session: what every listener hears (its flushes) reaches the
    // passive one too, though not the fixes.
    let wanting = receiver.listen(wanting: .fixes) { _ in }
    #expect(await heard.until { $0.count >= 2 })
    #expect(!heard.withLock { $0 }.contains { if case .fix = $0 { true } else { false } })
    // The last want gone, the session stops and says nothing more.
    receiver.stopListening(wanting)
    await receiver.sessionClosed()
    // Its task has ended, and a listener that wants nothing does not open another: nobody is
    // left to say anything.
    #expect(!receiver.hasOpenSession)
    receiver.stopListening(passive)
  }
}
