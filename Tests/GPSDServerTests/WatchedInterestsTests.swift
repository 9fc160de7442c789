import GPSDServer
import TestHelpers
import Testing
import Transports

/// A served receiver copies out its bytes and sentences (a dozen copies an epoch, made between
/// the epoch's last byte and the reports) only while some client watches them.
@Suite(.timeLimit(.minutes(1))) struct WatchedInterestsTests {
  @Test func aReceiversSentencesAreCopiedOnlyWhileAClientWatchesThem() async throws {
    let pty = try PseudoTerminal()
    let server = try GPSDServer.startedOnAFreePort()
    defer { server.stop() }
    let receiver = Receiver(SerialSource(path: pty.slavePath))
    let feeding = Task(executorPreference: DedicatedExecutor.own()) { await server.serve(receiver, device: pty.slavePath) }
    #expect(try await Self.wait { receiver.interests.contains(.fixes) })
    #expect(receiver.interests.isDisjoint(with: [.sentences, .bytes]))

    let reports = try RawClient(port: try #require(server.port))
    try reports.send(#"?WATCH={"enable":true,"json":true};"#)
    _ = try await offThePool { reports.readBlocking(for: 10) { $0.contains { $0.hasPrefix(#"{"class":"WATCH""#) } } }
    #expect(receiver.interests.isDisjoint(with: [.sentences, .bytes]), "a JSON watcher wants neither")

    let sentences = try RawClient(port: try #require(server.port))
    try sentences.send(#"?WATCH={"enable":true,"nmea":true};"#)
    _ = try await offThePool { sentences.readBlocking(for: 10) { $0.contains { $0.hasPrefix(#"{"class":"WATCH""#) } } }
    #expect(receiver.interests.contains(.sentences))
    #expect(!receiver.interests.contains(.bytes))

    sentences.abort()
    #expect(try await Self.wait { !receiver.interests.contains(.sentences) }, "the NMEA watcher has gone")
    feeding.cancel()
    await feeding.value
  }

  /// Whether `condition` holds within 10 s, asked every 20 ms.
  static func wait(_ condition: () -> Bool) async throws -> Bool {
    await eventually(timeout: .seconds(10), condition)
  }
}
