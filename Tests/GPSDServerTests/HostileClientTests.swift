import Foundation
import GPSDServer
import Plumbing
import TestHelpers
import Testing

/// Clients that hold on to the server without using it: only complete requests keep a slot,
/// a request that never ends is closed, and a client turned away is told why.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct HostileClientTests {
  static let watchJSON = #"?WATCH={"enable":true,"json":true}"#

  @Test func aRequestThatNeverEndsIsClosedWithTheReason() async throws {
    let served = try Served("sirf-nmea22-1hz.nmea", waitForClient: false) { $0.requestTimeout = .seconds(1) }
    let client = try RawClient(port: served.port)
    try client.send(#"?WATCH={"enable":tr"#)
    // A byte now and then does not count as activity: one every half second, until the
    // server closes (it never would if each byte put the time-out off).
    let lines = try await offThePool {
      var lines: [String] = []
      for _ in 0..<20 where !lines.contains(where: { $0.contains("Request incomplete") }) {
        try? client.send(" ")
        lines = client.readBlocking(for: 0.5) { $0.contains { $0.contains("Request incomplete") } }
      }
      return lines
    }
    #expect(lines.contains { $0.contains(#""class":"ERROR""#) && $0.contains("Request incomplete") }, "\(lines)")
    #expect(client.isClosedByServer)
  }

  /// 64 connections dribbling a byte of a request that never ends, each one just before a
  /// newcomer comes along, hold every slot; a gpspipe that comes along is served all the same,
  /// a few seconds later at most.
  @Test(.enabled(if: Installed.path("gpspipe") != nil, "gpspipe is not installed (Debian: gpsd-clients)"))
  func slowClientsCannotKeepAWellBehavedClientOut() async throws {
    let served = try Served("sirf-nmea22-1hz.nmea", speed: 4)
    let slow = try (0..<64).map { _ in try RawClient(port: served.port) }
    for client in slow { try client.send("?WATCH={") }
    #expect(await eventually { served.server.statistics.clients == 64 })
    // gpspipe asks again when it is turned away: it is served once a slot is free.
    var wasServed = false
    var attempts: [String] = []
    for _ in 0..<10 where !wasServed {
      for client in slow { try? client.send("\"") }
      let result = try await runProgram(Installed.path("gpspipe")!, ["-w", "-n", "4", "127.0.0.1:\(served.port)"], timeout: 10)
      attempts.append(result.output + result.error)
      wasServed = result.output.contains(#""class":"TPV""#) || result.output.contains(#""class":"DEVICES""#)
    }
    #expect(wasServed, "\(attempts)")
    // It never saw a reset: when it was turned away, it was told why.
    #expect(!attempts.contains { $0.contains("reset") }, "\(attempts)")
  }

  @Test(.enabled(if: Installed.path("gpspipe") != nil, "gpspipe is not installed (Debian: gpsd-clients)"))
  func aClientTurnedAwayReadsWhyNotAReset() async throws {
    let served = try Served("sirf-nmea22-1hz.nmea", speed: 4)
    let watchers = try (0..<64).map { _ in try RawClient(port: served.port) }
    for client in watchers { try client.send(Self.watchJSON) }
    // (On failure, what the server saw: clients, watchers, connections, dropped.)
    #expect(await eventually { served.server.statistics.watchers == 64 }, "\(served.server.statistics)")
    let result = try await runProgram(Installed.path("gpspipe")!, ["-w", "-n", "2", "127.0.0.1:\(served.port)"], timeout: 10)
    #expect(result.output.contains("Too many clients: at most 64 at once."), "\(result.output) \(result.error)")
    #expect(!result.error.contains("reset"), "\(result.error)")
    withExtendedLifetime(watchers) {}
  }
}
