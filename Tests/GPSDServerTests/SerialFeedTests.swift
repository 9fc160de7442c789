import Foundation
import GPSDServer
import TestHelpers
import Testing

/// A serial receiver served: its sentences pass to `nmea:true` watchers as it sent them, in
/// order, framed once by the source that also makes the fixes.
@Suite(.timeLimit(.minutes(3))) struct SerialFeedTests {
  @Test func aReceiversSentencesReachNMEAWatchersVerbatimAndInOrder() async throws {
    let pty = try PseudoTerminal()
    let server = try GPSDServer.startedOnAFreePort()
    defer { server.stop() }
    let feeding = Task(executorPreference: DedicatedExecutor.own()) { await server.feed(from: .serial(path: pty.slavePath)) }
    let client = try RawClient(port: try #require(server.port))
    try client.send(#"?WATCH={"enable":true,"nmea":true};"#)
    let fixture = Served.fixtures.appendingPathComponent("ublox-m8-1hz.nmea")
    let sentences = try String(contentsOf: fixture, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
      .filter { $0.hasPrefix("$") }
    let capture = try Data(contentsOf: fixture)
    // Every byte through, however long the server's reader waits its turn: a line that drops
    // what is not read (the default, after a second) cut a sentence under load.
    let playing = Task(executorPreference: DedicatedExecutor.own()) { await pty.play(capture, patience: .seconds(60)) }
    _ = try await offThePool { client.readBlocking(for: 60) { lines in lines.filter { $0.hasPrefix("$") }.count >= 200 } }
    // Whole lines only: under load the socket fills and the read may end inside a sentence.
    let lines = client.completeLines.filter { $0.hasPrefix("$") }.map { $0.trimmingCharacters(in: .newlines) }
    await playing.value
    // A tty's DEVICE says its line as gpsd's does, once autobaud has found the speed.
    let line = #""native":0,"bps":9600,"parity":"N","stopbits":1"#
    let devices = try await offThePool { client.readBlocking(for: 60) { $0.contains { $0.contains(line) } } }
      .filter { $0.contains(#""class":"DEVICE""#) }
    #expect(devices.contains { $0.contains(line) }, "\(devices)")
    feeding.cancel()
    await feeding.value
    #expect(lines.count >= 200)
    // Autobaud may settle after the first sentences: what is served is a run of the capture
    // (which repeats some sentences word for word, so any start that fits will do).
    let fits = sentences.indices.contains { start in
      start + lines.count <= sentences.count && Array(sentences[start..<start + lines.count]) == lines
    }
    #expect(fits, "the \(lines.count) sentences served are not a run of the capture; first: \(lines.first ?? "none")")
  }
}

/// DEVICE's `cycle` follows the receiver's own rate, learned from its fixes.
@Suite(.timeLimit(.minutes(3))) struct DeviceCycleTests {
  @Test func aTenHertzReceiversDeviceSaysATenthOfASecond() async throws {
    let served = try Served("quectel-nmea411-10hz.nmea", speed: 1)
    let client = try RawClient(port: served.port)
    try client.send(#"?WATCH={"enable":true,"json":true};"#)
    let lines = try await offThePool { client.readBlocking(for: 60) { $0.contains { $0.contains(#""cycle":0.10"#) } } }
    #expect(lines.contains { $0.hasPrefix(#"{"class":"DEVICE""#) && $0.contains(#""cycle":0.10"#) }, "\(lines.prefix(6))")
  }
}
