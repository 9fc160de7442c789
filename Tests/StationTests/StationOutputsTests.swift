import NMEASimulation
import Plumbing
import Station
import Testing
import Transports

/// `serve`'s wiring, without a network: for each receiver the station serves, it is announced,
/// its corrections and its engine start, it is served to gpsd's clients inside the page's
/// showing of it, and when its serving ends, its corrections and engine stop before the
/// station is done; a correction stream that fails for good is said, and the receiver is
/// served on.
@Suite(.timeLimit(.minutes(3)))
struct StationOutputsTests {
  /// What the outputs were asked to do, in order, by receiver.
  final class Journal: Sendable {
    private let entries = Locked<[String]>([])
    func note(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
    func of(_ name: String) -> [String] { all.filter { $0.hasPrefix(name + ": ") }.map { String($0.dropFirst(name.count + 2)) } }
  }

  /// Outputs that fail the running test for every part a test did not give: what is not
  /// expected to happen must not.
  static func unimplemented() -> Station.Outputs {
    Station.Outputs(
      gpsd: { member in Issue.record("gpsd served \(member.name) unexpectedly") },
      page: { member, _ in Issue.record("the page showed \(member.name) unexpectedly") },
      corrections: { member in Issue.record("corrections streamed to \(member.name) unexpectedly") },
      zones: { member in Issue.record("the engine followed \(member.name) unexpectedly") },
      admitted: { member in Issue.record("\(member.name) was admitted unexpectedly") },
      say: { message in Issue.record("said unexpectedly: \(message)") })
  }

  /// Waits until the task is cancelled, noting that it was: a stream that never yields ends
  /// its iteration at the cancellation.
  static func untilCancelled(_ journal: Journal, _ entry: String) async {
    let (never, continuation) = AsyncStream<Void>.makeStream()
    defer { continuation.finish() }  // (kept until then: a stream whose continuation is gone ends)
    for await _ in never {}
    journal.note(entry)
  }

  static let shortDrive = Capture.simulated(Simulation(route: Route.demoDrive.lasting(5), profile: .ublox, seed: 1))

  @Test func eachReceiverIsAnnouncedFollowedServedInsideThePageAndLetGoInOrder() async throws {
    let station = Station(
      Station.Configuration(sources: [
        Station.Source(.replay(Self.shortDrive, speed: .max), name: "first"),
        Station.Source(.replay(Self.shortDrive, speed: .max), name: "second"),
      ]))
    let journal = Journal()
    var outputs = Self.unimplemented()
    outputs.admitted = { member in journal.note("\(member.name): admitted") }
    outputs.page = { member, serving in
      journal.note("\(member.name): shown")
      await serving()
      journal.note("\(member.name): no longer shown")
    }
    outputs.gpsd = { member in
      // The gpsd server's part: it wants fixes until the capture's end.
      let fixes = Locked(0)
      let listener = member.receiver.listen(wanting: .fixes) { event in
        if case .fix = event { fixes.withLock { $0 += 1 } }
      }
      await member.receiver.waitForEnd()
      member.receiver.stopListening(listener)
      journal.note("\(member.name): served \(fixes.withLock { $0 } >= 5 ? "its fixes" : "\(fixes.withLock { $0 }) fixes")")
    }
    outputs.corrections = { member in await Self.untilCancelled(journal, "\(member.name): corrections stopped") }
    outputs.zones = { member in await Self.untilCancelled(journal, "\(member.name): engine stopped") }

    try await station.serve(outputs)

    for name in ["first", "second"] {
      let entries = journal.of(name)
      #expect(entries.first == "admitted", "\(entries)")
      #expect(entries.dropFirst().prefix(2) == ["shown", "served its fixes"], "\(entries)")
      #expect(entries.dropFirst(3).first == "no longer shown", "\(entries)")
      #expect(Set(entries.dropFirst(4)) == ["corrections stopped", "engine stopped"], "\(entries)")
      #expect(entries.count == 6, "\(entries)")
    }
  }

  @Test func aCorrectionStreamThatFailsForGoodIsSaidAndTheReceiverIsServedOn() async throws {
    struct Refused: Error, CustomStringConvertible {
      var description: String { "the caster refused the password" }
    }
    let station = Station(Station.Configuration(sources: [Station.Source(.replay(Self.shortDrive, speed: .max), name: "rover")]))
    let journal = Journal()
    var outputs = Self.unimplemented()
    outputs.admitted = { _ in }
    outputs.page = { _, serving in await serving() }
    outputs.zones = nil
    outputs.corrections = { _ in throw Refused() }
    outputs.say = { journal.note("said: \($0)") }
    outputs.gpsd = { member in
      await member.receiver.run()
      journal.note("rover: served to its end")
    }

    try await station.serve(outputs)

    #expect(journal.of("said") == ["Error: corrections: the caster refused the password"])
    #expect(journal.of("rover") == ["served to its end"])
  }
}
