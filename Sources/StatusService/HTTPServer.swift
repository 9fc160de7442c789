import Dispatch
import Plumbing

/// A small HTTP/1.1 server for the status port, held to the gpsd port's standard: GET and HEAD
/// only, a head of at most 8 KiB, a bounded number of clients, only complete requests count
/// as activity (a client that dribbles a request that never ends is closed), keep-alive, no
/// file system access at all (every answer comes from `respond`), and event streams whose
/// clients are closed when they stop reading rather than holding anything up.
///
/// All work happens on one serial queue; `respond` runs there, so it must be quick, and must
/// not ask the server anything (it is told the counters).
package final class HTTPServer: @unchecked Sendable {
  package struct Configuration: Sendable {
    package var host = "127.0.0.1"
    package var port = 8947
    /// The most clients at once, event streams included.
    package var maximumClients = 64
    /// How long a request may stay incomplete before its client is answered 408 and closed.
    package var requestTimeout: Duration = .seconds(10)
    /// How long a kept-alive connection may wait for its next request.
    package var idleTimeout: Duration = .seconds(30)
    /// Bytes queued for a client before it is taken to have stopped reading, and closed.
    package var queueLimit = 1 << 20
    /// How often an event stream hears a comment when there is no event, so proxies and
    /// browsers keep it open and a dead client is found out.
    package var heartbeat: Duration = .seconds(15)
    /// The `Server` header.
    package var serverName = "gpsbridge"

    package init() {}
  }

  /// What has happened so far.
  package struct Counters: Sendable, Equatable {
    package var connections = 0
    package var clients = 0
    package var streams = 0
    package var requests = 0
    /// Clients closed for a refused request, a timeout, not reading, or want of room.
    package var dropped = 0
  }

  package let configuration: Configuration
  /// Answers a request, on the server's queue, told the server's counters as they are.
  private let respond: @Sendable (HTTPRequest, Counters) -> HTTPResponse
  private let queue = DispatchQueue(label: "gpsbridge.http")
  private var listener: FileDescriptor?
  private var acceptSource: (any DispatchSourceRead)?
  private var timer: (any DispatchSourceTimer)?
  private var clients: [Int: Connection] = [:]
  /// Clients told why they go, their last bytes read until they hang up (see ``dismiss``).
  private var leaving: [Int: Connection] = [:]
  private var nextID = 0
  private var counters = Counters()
  private var lastHeartbeat = ContinuousClock.now
  private let readBuffer = ReadBuffer()

  /// One client: its socket, its half-read request, and whether it follows the event stream.
  private final class Connection {
    let id: Int
    let socket: SocketConnection
    var reader = HTTPRequestReader()
    var lastHeard = ContinuousClock.now
    var incompleteSince: ContinuousClock.Instant?
    var leavingSince: ContinuousClock.Instant?
    var streams = false

    init(id: Int, socket: SocketConnection) {
      self.id = id
      self.socket = socket
    }
  }

  package init(configuration: Configuration, respond: @escaping @Sendable (HTTPRequest, Counters) -> HTTPResponse) {
    self.configuration = configuration
    self.respond = respond
  }

  deinit {
    acceptSource?.cancel()
    timer?.cancel()
  }

  /// Starts listening.
  package func start() throws(ConnectFailure) {
    let socket = try FileDescriptor.listenTCP(host: configuration.host, port: configuration.port)
    queue.sync {
      listener = socket
      let source = DispatchSource.makeReadSource(fileDescriptor: socket.rawValue, queue: queue)
      source.setEventHandler { [weak self] in self?.acceptWaiting(on: socket) }
      source.setCancelHandler { try? socket.close() }
      source.resume()
      acceptSource = source
      let timer = DispatchSource.makeTimerSource(queue: queue)
      timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1))
      timer.setEventHandler { [weak self] in self?.tick() }
      timer.resume()
      self.timer = timer
    }
  }

  /// The port listened on (useful after asking for port 0).
  package var port: Int? { queue.sync { listener?.localPort } }

  package var statistics: Counters { queue.sync { counters } }

  /// Stops listening and closes every client.
  package func stop() {
    queue.sync {
      acceptSource?.cancel()
      acceptSource = nil
      listener = nil
      timer?.cancel()
      timer = nil
      for client in clients.values { client.socket.close() }
      for client in leaving.values { client.socket.close() }
      clients.removeAll()
      leaving.removeAll()
      counters.clients = 0
      counters.streams = 0
    }
  }

  /// Sends one event to every client following the event stream: `data` is one line (JSON,
  /// without a line end). A client that has not taken the last megabyte is closed.
  package func publish(event data: [UInt8]) {
    queue.async { [self] in
      guard counters.streams > 0 else { return }
      var message = Array("data: ".utf8)
      message += data
      message += [0x0A, 0x0A]
      for client in clients.values where client.streams { send(message, to: client) }
    }
  }

  // MARK: Clients

  private func acceptWaiting(on listener: FileDescriptor) {
    while let socket = try? listener.accept() {
      counters.connections += 1
      let id = nextID
      nextID += 1
      // A small send buffer keeps a client's backlog in the queue counted here rather than in
      // the kernel's, so a page that stops reading is noticed after kilobytes, not megabytes.
      var sendBuffer: CInt = 65_536
      setsockopt(socket.rawValue, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<CInt>.size))
      let connection = Connection(id: id, socket: SocketConnection(socket: socket, queue: queue, buffer: readBuffer))
      connection.socket.start(
        onBytes: { [weak self] bytes in self?.received(bytes, from: id) },
        onWritable: { [weak self] in self?.flush(id) },
        onClosed: { [weak self] in self?.remove(id) })
      if clients.count >= configuration.maximumClients, !makeRoom() {
        counters.dropped += 1
        dismiss(connection, with: .text(.serviceUnavailable, "Too many clients: at most \(configuration.maximumClients) at once."))
        continue
      }
      clients[id] = connection
      counters.clients = clients.count
    }
  }

  /// Closes the client that has done least for longest, so a newcomer gets its slot: one
  /// that is not following the event stream and is either idle (nothing being sent to it: a
  /// kept-alive connection between requests, or one that never asked anything) or dribbling
  /// a request; `false` when every client is busy. Idle connections would otherwise hold
  /// every slot until their idle time-out, and the page and `/metrics` answer 503 meanwhile.
  private func makeRoom() -> Bool {
    let idle = clients.values.filter { client in
      !client.streams && (client.incompleteSince != nil || client.socket.unsentByteCount == 0)
    }
    guard let oldest = idle.min(by: { $0.lastHeard < $1.lastHeard }) else { return false }
    counters.dropped += 1
    dismiss(
      oldest, with: .text(.serviceUnavailable, "Closed to make room for another client: this one was idle, or its request was not coming."))
    return true
  }

  private func received(_ bytes: UnsafeRawBufferPointer, from id: Int) {
    guard let client = clients[id], !client.streams else { return }  // a stream's client has nothing more to ask
    client.reader.append(bytes)
    var completed = false
    while let outcome = client.reader.next() {
      switch outcome {
      case .failure(let refusal):
        counters.dropped += 1
        dismiss(client, with: .text(refusal.status, refusal.reason))
        return
      case .success(let request):
        completed = true
        counters.requests += 1
        answer(request, for: client)
        guard clients[id] != nil, !client.streams else { return }
      }
    }
    if completed { client.lastHeard = .now }
    if client.reader.bufferedByteCount == 0 {
      client.incompleteSince = nil
    } else if client.incompleteSince == nil || completed {
      client.incompleteSince = .now
    }
  }

  private func answer(_ request: HTTPRequest, for client: Connection) {
    var response = respond(request, counters)
    if response.status == .methodNotAllowed { response.extraHeaders.append(("Allow", "GET, HEAD")) }
    let forHead = request.method == .head
    let keepsAlive = request.keepsAlive && response.status == .ok
    send(response.bytes(forHead: forHead, keepsAlive: keepsAlive, server: configuration.serverName), to: client)
    guard clients[client.id] != nil else { return }
    if response.isEventStream, !forHead {
      client.streams = true
      counters.streams += 1
      // The browser's first event comes at once, not at the next publish.
      send(Array("retry: 2000\n\n".utf8), to: client)
    } else if !keepsAlive {
      client.socket.shutDownSending()
      remove(client.id, closing: false)
      client.leavingSince = .now
      leaving[client.id] = client
    }
  }

  /// Answers `response` and lets the client go: its slot is free at once, its last bytes are
  /// read until it hangs up, so it reads the answer rather than a reset.
  private func dismiss(_ client: Connection, with response: HTTPResponse) {
    remove(client.id, closing: false)
    _ = client.socket.queue(
      response.bytes(forHead: false, keepsAlive: false, server: configuration.serverName), limit: configuration.queueLimit)
    client.socket.shutDownSending()
    client.leavingSince = .now
    leaving[client.id] = client
  }

  private func send(_ bytes: [UInt8], to client: Connection) {
    guard client.socket.queue(bytes, limit: configuration.queueLimit) else {
      // It stopped reading: it goes, rather than holding anything up or growing without bound.
      counters.dropped += 1
      remove(client.id)
      return
    }
    flush(client.id)
  }

  private func flush(_ id: Int) {
    guard let client = clients[id] ?? leaving[id] else { return }
    if !client.socket.flush() { remove(id) }
  }

  private func remove(_ id: Int, closing: Bool = true) {
    if let client = leaving.removeValue(forKey: id) { client.socket.close() }
    guard let client = clients.removeValue(forKey: id) else { return }
    if closing { client.socket.close() }
    if client.streams { counters.streams -= 1 }
    counters.clients = clients.count
  }

  /// Once a second: requests left incomplete too long are answered 408 and closed, kept-alive
  /// connections idle too long are closed, clients told why a moment ago are closed for good,
  /// and event streams hear a heartbeat now and then.
  private func tick() {
    let now = ContinuousClock.now
    for client in clients.values where !client.streams {
      if let since = client.incompleteSince, since.duration(to: now) > configuration.requestTimeout {
        counters.dropped += 1
        dismiss(client, with: .text(.requestTimeout, "The request stayed incomplete for \(configuration.requestTimeout)."))
      } else if client.incompleteSince == nil, client.lastHeard.duration(to: now) > configuration.idleTimeout {
        remove(client.id)
      }
    }
    for client in leaving.values where client.leavingSince.map({ $0.duration(to: now) > .seconds(2) }) ?? true {
      leaving.removeValue(forKey: client.id)
      client.socket.close()
    }
    if lastHeartbeat.duration(to: now) >= configuration.heartbeat {
      lastHeartbeat = now
      for client in clients.values where client.streams { send(Array(": heartbeat\n\n".utf8), to: client) }
    }
  }
}
