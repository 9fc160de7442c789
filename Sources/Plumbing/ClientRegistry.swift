import Dispatch

/// The clients of a server, kept on the server's queue: the one place where the gpsd port and
/// the status port take connections, bound their number and their queues, make room for a
/// newcomer, and let a client go so that it reads why.
///
/// Each client has a `Session`, the server's own state for it (a gpsd watch, an HTTP request
/// reader). Only complete requests count as being heard (``heard(_:completed:pending:)``), so
/// a client that dribbles bytes keeps no slot by them. A client let go (``dismiss(_:farewell:)``)
/// frees its slot at once; its writing side is shut after the farewell and its last bytes are
/// read until it hangs up (or ``sweep(now:)`` closes it two seconds on), so it reads the
/// farewell rather than a reset.
package final class ClientRegistry<Session> {
  /// One connected client.
  package final class Client {
    package let id: Int
    package let connection: SocketConnection
    package var session: Session
    /// When the client last completed a request (or connected).
    package fileprivate(set) var lastHeard = ContinuousClock.now
    /// Since when bytes of a request not yet complete have been waiting.
    package fileprivate(set) var incompleteSince: ContinuousClock.Instant?
    fileprivate var leavingSince: ContinuousClock.Instant?

    fileprivate init(id: Int, connection: SocketConnection, session: Session) {
      self.id = id
      self.connection = connection
      self.session = session
    }
  }

  private let queue: DispatchQueue
  private let buffer = ReadBuffer()
  /// The most clients at once.
  package let maximumClients: Int
  /// Bytes queued for a client before it is taken to have stopped reading, and closed.
  package let queueLimit: Int
  private var members: [Int: Client] = [:]
  private var leaving: [Int: Client] = [:]
  private var nextID = 0
  /// Connections taken since the start.
  package private(set) var connections = 0
  /// Clients closed for not reading, for being one too many, or by ``dismiss(_:farewell:counted:)``
  /// with `counted`.
  package private(set) var dropped = 0
  /// Told of each client that leaves the registry, whatever the reason, once.
  package var onLeave: (Client) -> Void = { _ in }

  package init(queue: DispatchQueue, maximumClients: Int, queueLimit: Int) {
    self.queue = queue
    self.maximumClients = maximumClients
    self.queueLimit = queueLimit
  }

  /// The clients connected now.
  package var clients: Dictionary<Int, Client>.Values { members.values }
  package var count: Int { members.count }
  package func client(_ id: Int) -> Client? { members[id] }

  /// Takes every connection waiting on `listener`. Each gets `session()` and has its bytes
  /// handed to `received`; when every slot is taken, the least recently heard of the clients
  /// `mayGo` allows is let go with `makeRoom`'s farewell, or else the newcomer with `full`'s.
  /// `welcome` runs for each client kept.
  package func acceptWaiting(
    on listener: FileDescriptor, session: () -> Session, received: @escaping (Client, UnsafeRawBufferPointer) -> Void,
    mayGo: (Client) -> Bool, makeRoom: [UInt8], full: [UInt8], welcome: (Client) -> Void = { _ in }
  ) {
    while let socket = try? listener.accept() {
      connections += 1
      let id = nextID
      nextID += 1
      // A small send buffer keeps a client's backlog in the queue counted here rather than in
      // the kernel's, so a client that stops reading is noticed after kilobytes, not megabytes.
      var sendBuffer: CInt = 65_536
      setsockopt(socket.rawValue, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<CInt>.size))
      let client = Client(id: id, connection: SocketConnection(socket: socket, queue: queue, buffer: buffer), session: session())
      client.connection.start(
        onBytes: { [weak self] bytes in
          guard let self, let client = members[id] else { return }  // a leaving client's bytes are dropped
          received(client, bytes)
        },
        onWritable: { [weak self] in self?.flush(id) },
        onClosed: { [weak self] in self?.remove(id) })
      if members.count >= maximumClients { removeDeparted() }
      if members.count >= maximumClients {
        if let oldest = members.values.filter(mayGo).min(by: { $0.lastHeard < $1.lastHeard }) {
          dismiss(oldest, farewell: makeRoom, counted: true)
        } else {
          dropped += 1
          client.leavingSince = .now
          letGo(client, farewell: full)
          continue
        }
      }
      members[id] = client
      welcome(client)
    }
  }

  /// Removes the members whose peer has closed its end though its end of file has not been
  /// read yet: a client that left holds no slot a newcomer needs (a program that checks the
  /// port is open, then connects its 64 clients, left one of them turned away).
  private func removeDeparted() {
    for (id, client) in members where client.connection.peerHasClosed { remove(id) }
  }

  /// Notes what a client's bytes made of its requests: `completed` whether one or more were
  /// completed (it was heard), `pending` the bytes of one not yet complete.
  package func heard(_ client: Client, completed: Bool, pending: Int) {
    if completed { client.lastHeard = .now }
    if pending == 0 {
      client.incompleteSince = nil
    } else if client.incompleteSince == nil || completed {
      client.incompleteSince = .now
    }
  }

  /// Queues `bytes` for `client` and writes what the socket takes; a client that has not taken
  /// the last ``queueLimit`` bytes stopped reading, and is closed, rather than holding anything
  /// up or growing without bound.
  package func send(_ bytes: [UInt8], to client: Client) {
    guard client.connection.queue(bytes, limit: queueLimit) else {
      dropped += 1
      remove(client.id)
      return
    }
    flush(client.id)
  }

  /// Lets `client` go with `farewell` (counted among the dropped when `counted`): its slot is
  /// free at once.
  package func dismiss(_ client: Client, farewell: [UInt8], counted: Bool) {
    guard members.removeValue(forKey: client.id) != nil else { return }
    if counted { dropped += 1 }
    client.leavingSince = .now
    onLeave(client)
    letGo(client, farewell: farewell)
  }

  /// Sends `farewell` and shuts the writing side, keeping the client to read its last bytes.
  private func letGo(_ client: Client, farewell: [UInt8]) {
    _ = client.connection.queue(farewell, limit: queueLimit)
    client.connection.shutDownSending()
    leaving[client.id] = client
  }

  /// Closes the client now, without a word (it asked to leave, or it gave up on its answer).
  package func close(_ client: Client) { remove(client.id) }

  /// Lets `client` go after its answer has been written: no farewell, no count, its slot free.
  package func finish(_ client: Client) {
    guard members.removeValue(forKey: client.id) != nil else { return }
    client.leavingSince = .now
    onLeave(client)
    client.connection.shutDownSending()
    leaving[client.id] = client
  }

  private func flush(_ id: Int) {
    // A leaving client's farewell may still be on its way.
    guard let client = members[id] ?? leaving[id] else { return }
    if !client.connection.flush() { remove(id) }
  }

  private func remove(_ id: Int) {
    if let client = leaving.removeValue(forKey: id) { client.connection.close() }
    guard let client = members.removeValue(forKey: id) else { return }
    client.connection.close()
    onLeave(client)
  }

  /// Closes for good the clients let go more than two seconds ago (a tick's work).
  package func sweep(now: ContinuousClock.Instant) {
    for client in leaving.values where client.leavingSince.map({ $0.duration(to: now) > .seconds(2) }) ?? true {
      leaving.removeValue(forKey: client.id)
      client.connection.close()
    }
  }

  /// Closes every client, those on their way out too.
  package func closeAll() {
    for client in members.values {
      client.connection.close()
      onLeave(client)
    }
    for client in leaving.values { client.connection.close() }
    members.removeAll()
    leaving.removeAll()
  }
}
