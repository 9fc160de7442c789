import Foundation
import GPSDServer
import TestHelpers
import Testing

/// The README's "In a Swift program" example, as printed, with a pseudo-terminal for the
/// receiver and port 0 for 2947 (which a test cannot count on being free).
@Suite(.timeLimit(.minutes(3))) struct ReadmeExampleTests {
  @Test func theServerFedFromASerialReceiverAsTheReadmeShowsIt() async throws {
    let pty = try PseudoTerminal()
    var configuration = GPSDServer.Configuration()
    configuration.port = 0
    let server = GPSDServer(configuration: configuration)
    try server.start()
    let feeding = Task(executorPreference: DedicatedExecutor.own()) { await server.feed(from: .serial(path: pty.slavePath)) }
    let port = try #require(server.port)

    let client = try RawClient(port: port)
    try client.send(#"?WATCH={"enable":true,"json":true};"#)
    let capture = try Data(contentsOf: Served.fixtures.appendingPathComponent("ublox-m8-1hz.nmea"))
    let playing = Task(executorPreference: DedicatedExecutor.own()) { await pty.play(capture) }
    // The server and the receiver run off the shared pool, so waiting here starves neither.
    let lines = await client.read(for: 20) { lines in
      lines.contains { $0.hasPrefix(#"{"class":"TPV","device":"\#(pty.slavePath)","mode":3"#) }
    }
    #expect(lines.first?.hasPrefix(#"{"class":"VERSION""#) == true)
    #expect(lines.contains { $0.hasPrefix(#"{"class":"TPV","device":"\#(pty.slavePath)","mode":3"#) })

    await playing.value  // a write to a pty nobody reads would block the executor's thread
    feeding.cancel()
    await feeding.value
    server.stop()
    await client.read(for: 2)  // what was still on its way
    #expect(client.isClosedByServer)
  }
}
