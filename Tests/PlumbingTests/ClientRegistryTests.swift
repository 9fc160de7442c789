import Dispatch
import Testing

@testable import Plumbing

/// The clients of both servers: a full registry lets the client heard from least recently go
/// (of those that may), with a farewell it reads before the close; with none that may, the
/// newcomer is turned away, also with its farewell; a client that stops reading is dropped at
/// its queue's limit; every leaving is told once.
struct ClientRegistryTests {
  /// A registry of at most two clients on a queue of its own, its clients' bytes counted as
  /// complete requests, and the ids of those that left.
  final class Server: @unchecked Sendable {
    let queue = DispatchQueue(label: "test.registry")
    let registry: ClientRegistry<Bool>
    let listening: FileDescriptor
    let port: Int
    let left = Locked<[Int]>([])
    /// The ids of clients heard from, as they are.
    let heard: AsyncStream<Int>
    private let hear: AsyncStream<Int>.Continuation

    init(queueLimit: Int = 1 << 20) throws {
      (listening, port) = try ClientConnectionTests.listener()
      registry = ClientRegistry(queue: queue, maximumClients: 2, queueLimit: queueLimit)
      (heard, hear) = AsyncStream.makeStream()
      registry.onLeave = { [left] client in left.withLock { $0.append(client.id) } }
    }

    /// Connects a client and has the registry take it; `mayGo` is its session.
    func connect(mayGo: Bool = true) async throws -> ClientConnection {
      let connection = try await ClientConnection.connect(host: "127.0.0.1", port: port, label: "test")
      queue.sync { takeWaiting(mayGo: mayGo) }
      return connection
    }

    /// Has the registry take the connections waiting; on `queue`.
    func takeWaiting(mayGo: Bool = true) {
      registry.acceptWaiting(
        on: listening, session: { mayGo },
        received: { [registry, hear] client, _ in
          registry.heard(client, completed: true, pending: 0)
          hear.yield(client.id)
        },
        mayGo: { $0.session }, makeRoom: Array("room\n".utf8), full: Array("full\n".utf8),
        welcome: { [registry] client in registry.send(Array("hi\n".utf8), to: client) })
    }

    var ids: [Int] { queue.sync { registry.clients.map(\.id).sorted() } }
  }

  /// Everything `connection` reads until the server closes it.
  static func readToTheEnd(_ connection: ClientConnection) async -> String {
    var bytes: [UInt8] = []
    while case .bytes(let more) = await connection.receive(within: .seconds(30)) { bytes += more }
    return String(decoding: bytes, as: UTF8.self)
  }

  @Test func aFullRegistryLetsTheLeastRecentlyHeardGoAndItReadsWhy() async throws {
    let server = try Server()
    defer { try? server.listening.close() }
    let first = try await server.connect()
    let second = try await server.connect()
    #expect(await first.receive(within: .seconds(30)) == .bytes(Array("hi\n".utf8)))
    #expect(await second.receive(within: .seconds(30)) == .bytes(Array("hi\n".utf8)))
    // The first is heard from after the second connected: the second is now the one heard
    // from least recently.
    #expect(await first.send(Array("?\n".utf8)))
    var heard = server.heard.makeAsyncIterator()
    #expect(await heard.next() == 0)

    let third = try await server.connect()
    #expect(await Self.readToTheEnd(second) == "room\n")
    #expect(await third.receive(within: .seconds(30)) == .bytes(Array("hi\n".utf8)))
    #expect(server.ids == [0, 2])
    #expect(server.left.withLock { $0 } == [1])
    #expect(server.queue.sync { (server.registry.connections, server.registry.dropped) } == (3, 1))
    for connection in [first, second, third] { await connection.close() }
  }

  /// A client that closed holds no slot, even before the server has read its end: a program
  /// that checked the port with a connection of its own, then connected its clients, had
  /// the last of them turned away.
  @Test func aClientThatLeftHoldsNoSlotBeforeItsEndIsRead() async throws {
    let server = try Server()
    defer { try? server.listening.close() }
    let first = try FileDescriptor.connectTCP(host: "127.0.0.1", port: server.port)
    let second = try FileDescriptor.connectTCP(host: "127.0.0.1", port: server.port)
    server.queue.sync { server.takeWaiting(mayGo: false) }
    #expect(server.ids == [0, 1])
    // The queue is held: the first's end of file cannot be read before the newcomer is taken.
    let third = try server.queue.sync {
      try first.close()
      let third = try FileDescriptor.connectTCP(host: "127.0.0.1", port: server.port)
      server.takeWaiting(mayGo: false)
      return third
    }
    #expect(server.ids == [1, 2])
    #expect(server.left.withLock { $0 } == [0])
    #expect(server.queue.sync { server.registry.dropped } == 0)
    for socket in [second, third] { try socket.close() }
  }

  @Test func whenNoneMayGoTheNewcomerIsTurnedAwayWithItsFarewell() async throws {
    let server = try Server()
    defer { try? server.listening.close() }
    let kept = [try await server.connect(mayGo: false), try await server.connect(mayGo: false)]
    let newcomer = try await server.connect()
    #expect(await Self.readToTheEnd(newcomer) == "full\n")
    #expect(server.ids == [0, 1])
    #expect(server.left.withLock { $0 } == [])  // never a member, so never said to leave
    #expect(server.queue.sync { server.registry.dropped } == 1)
    for connection in kept + [newcomer] { await connection.close() }
  }

  @Test func aClientThatStopsReadingIsDroppedAtItsQueuesLimit() async throws {
    let server = try Server(queueLimit: 64 * 1024)
    defer { try? server.listening.close() }
    let stuck = try await server.connect()
    // What the kernel's buffers take first is bounded (a few megabytes); then the registry's
    // queue fills, and the client goes.
    let chunk = [UInt8](repeating: 0x41, count: 16 * 1024)
    var sent = 0
    while sent < 64 << 20, server.ids == [0] {
      server.queue.sync {
        for client in Array(server.registry.clients) { server.registry.send(chunk, to: client) }
      }
      sent += chunk.count
    }
    #expect(server.ids == [], "still there after \(sent) bytes")
    #expect(server.left.withLock { $0 } == [0])
    #expect(server.queue.sync { server.registry.dropped } == 1)
    await stuck.close()
  }
}
