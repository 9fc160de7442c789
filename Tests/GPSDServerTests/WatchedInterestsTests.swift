import Foundation
import GPSDServer
import TestHelpers
import Testing
import Transports

/// A served receiver copies out its bytes and sentences (a dozen copies an epoch, made between
/// the epoch's last byte and the reports) only while some client watches them.
@Suite(.timeLimit(.minutes(3))) struct WatchedInterestsTests {
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
    _ = try await offThePool { reports.readBlocking(for: 60) { $0.contains { $0.hasPrefix(#"{"class":"WATCH""#) } } }
    #expect(receiver.interests.isDisjoint(with: [.sentences, .bytes]), "a JSON watcher wants neither")

    let sentences = try RawClient(port: try #require(server.port))
    try sentences.send(#"?WATCH={"enable":true,"nmea":true};"#)
    _ = try await offThePool { sentences.readBlocking(for: 60) { $0.contains { $0.hasPrefix(#"{"class":"WATCH""#) } } }
    #expect(receiver.interests.contains(.sentences))
    #expect(!receiver.interests.contains(.bytes))

    sentences.abort()
    #expect(try await Self.wait { !receiver.interests.contains(.sentences) }, "the NMEA watcher has gone")
    feeding.cancel()
    await feeding.value
  }

  /// `serve --replay` starts its replay before anyone connects; a client that asks for NMEA
  /// later gets the capture's sentences from the next epoch on (they were once decided per
  /// piece of 64 KiB read, so a small capture's sentences were never served: gpsmon and
  /// `gpspipe -r` showed nothing).
  @Test func aClientWatchingSentencesDuringAPacedReplayGetsThem() async throws {
    let served = try Served("sirf-nmea22-1hz.nmea", speed: 4, waitForClient: false)
    let json = try RawClient(port: served.port)
    try json.send(#"?WATCH={"enable":true,"json":true};"#)
    // The replay is under way before the NMEA watcher comes.
    _ = try await offThePool { json.readBlocking(for: 60) { $0.contains { $0.hasPrefix(#"{"class":"TPV""#) } } }
    // As sentences (`nmea`) and as the receiver's bytes (`raw` 2, gpsmon's way).
    for watch in [#"{"enable":true,"nmea":true}"#, #"{"enable":true,"raw":2}"#] {
      let client = try RawClient(port: served.port)
      try client.send("?WATCH=\(watch);")
      let lines = try await offThePool { client.readBlocking(for: 60) { $0.filter { $0.hasPrefix("$") }.count >= 12 } }
      let sentences = lines.filter { $0.hasPrefix("$") }.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
      #expect(sentences.count >= 12, "\(watch): \(lines.suffix(4))")
      #expect(sentences.allSatisfy(served.sentences.contains), "\(watch): \(sentences.prefix(3))")
    }
  }

  /// Whether `condition` holds within 10 s, asked every 20 ms.
  static func wait(_ condition: () -> Bool) async throws -> Bool {
    await eventually(timeout: .seconds(10), condition)
  }
}
