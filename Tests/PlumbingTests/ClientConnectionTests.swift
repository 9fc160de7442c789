import Dispatch
import Testing

@testable import Plumbing

/// A connection this process makes waits on Dispatch, never in a blocking call: a refused
/// port is said at once, a silent peer is quiet after the time given, a wake ends a wait, a
/// peer that never reads fails a send after its time, and a close ends what waits.
struct ClientConnectionTests {
  /// A listening socket on a free local port, and the port.
  static func listener() throws -> (FileDescriptor, Int) {
    let listening = try FileDescriptor.listenTCP(host: "127.0.0.1", port: 0)
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening.rawValue, $0, &length) }
    }
    return (listening, Int(UInt16(bigEndian: address.sin_port)))
  }

  @Test func aPortWithNobodyListeningIsRefusedAtOnce() async throws {
    let (listening, port) = try Self.listener()
    try listening.close()
    await #expect(throws: ConnectFailure.system(.connectionRefused)) {
      _ = try await ClientConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(30), label: "test")
    }
  }

  @Test func aNameThatDoesNotResolveIsSaid() async {
    // Unknown, or no name server answered (a machine without one): either way, said so.
    let failure = await #expect(throws: ConnectFailure.self) {
      _ = try await ClientConnection.connect(host: "no-such-host.invalid", port: 1883, label: "test")
    }
    #expect(failure == .unknownHost("no-such-host.invalid") || failure == .lookupUnanswered("no-such-host.invalid"))
  }

  @Test func bytesArriveASilentPeerIsQuietAndAWakeEndsTheWait() async throws {
    let (listening, port) = try Self.listener()
    defer { try? listening.close() }
    let connection = try await ClientConnection.connect(host: "127.0.0.1", port: port, label: "test")
    // (Closed once, below: a second close would close whatever another test opened since
    // under the same number.)
    let accepted = try #require(try await eventuallyAccepted(listening))

    #expect(await connection.receive(within: .milliseconds(50)) == .quiet)
    _ = Array("hello".utf8).withUnsafeBytes { try? accepted.sendSome($0) }
    #expect(await connection.receive(within: .seconds(30)) == .bytes(Array("hello".utf8)))

    // A wake while it waits ends the wait; one before it ends the next at once.
    async let woken = connection.receive(within: .seconds(30))
    while !connection.isReceiving { await Task.yield() }
    connection.wake()
    #expect(await woken == .woken)
    connection.wake()
    #expect(await connection.receive(within: .seconds(30)) == .woken)

    // What it sends, the peer reads.
    #expect(await connection.send(Array("world".utf8)))
    var buffer = [UInt8](repeating: 0, count: 16)
    #expect(await accepted.readable(within: .seconds(30)))
    let count = (try? accepted.read(into: &buffer)) ?? 0
    #expect(Array(buffer[0..<max(count, 0)]) == Array("world".utf8))

    // The peer closes: the end is read.
    try accepted.close()
    #expect(await connection.receive(within: .seconds(30)) == .closed)
    await connection.close()
  }

  @Test func aPeerThatNeverReadsFailsASendAfterItsTimeAndACloseEndsAWait() async throws {
    let (listening, port) = try Self.listener()
    defer { try? listening.close() }
    let connection = try await ClientConnection.connect(host: "127.0.0.1", port: port, label: "test")
    let accepted = try #require(try await eventuallyAccepted(listening))
    defer { try? accepted.close() }
    // Far more than the two sockets' buffers hold: the peer reads nothing.
    let flood = [UInt8](repeating: 0x41, count: 64 << 20)
    #expect(await connection.send(flood, within: .milliseconds(200)) == false)

    async let waiting = connection.receive(within: .seconds(30))
    while !connection.isReceiving { await Task.yield() }
    await connection.close()
    #expect(await waiting == .closed)
    #expect(await connection.send(Array("late".utf8)) == false)
  }

  /// The connection the listener has, once the kernel has it (it is non-blocking).
  private func eventuallyAccepted(_ listening: FileDescriptor) async throws -> FileDescriptor? {
    guard await listening.readable(within: .seconds(30)) else { return nil }
    return try listening.accept()
  }
}
