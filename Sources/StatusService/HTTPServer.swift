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
  /// The clients, their slots and queues (see ``ClientRegistry``).
  private var registry: ClientRegistry<Session>
  private var requests = 0
  private var streams = 0
  private var lastHeartbeat = ContinuousClock.now

  /// What the server keeps of one client: its half-read request, and whether it follows the
  /// event stream.
  private struct Session {
    var reader = HTTPRequestReader()
    var streams = false
  }
  private typealias Client = ClientRegistry<Session>.Client

  package init(configuration: Configuration, respond: @escaping @Sendable (HTTPRequest, Counters) -> HTTPResponse) {
    self.configuration = configuration
    self.respond = respond
    registry = ClientRegistry(queue: queue, maximumClients: configuration.maximumClients, queueLimit: configuration.queueLimit)
    registry.onLeave = { [unowned self] client in
      if client.session.streams { streams -= 1 }
    }
  }

  /// What has happened so far, on the queue.
  private var counters: Counters {
    Counters(
      connections: registry.connections, clients: registry.count, streams: streams, requests: requests, dropped: registry.dropped)
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
      registry.closeAll()
    }
  }

  /// Sends one event to every client following the event stream: `data` is one line (JSON,
  /// without a line end). A client that has not taken the last megabyte is closed.
  package func publish(event data: [UInt8]) {
    queue.async { [self] in
      guard streams > 0 else { return }
      var message = Array("data: ".utf8)
      message += data
      message += [0x0A, 0x0A]
      for client in registry.clients where client.session.streams { registry.send(message, to: client) }
    }
  }

  // MARK: Clients

  private func acceptWaiting(on listener: FileDescriptor) {
    registry.acceptWaiting(
      on: listener, session: { Session() },
      received: { [unowned self] client, bytes in received(bytes, from: client) },
      // The client that has done least for longest goes to make room: one not following the
      // event stream, and either idle (nothing being sent to it: a kept-alive connection
      // between requests, or one that never asked anything) or dribbling a request. Idle
      // connections would otherwise hold every slot until their idle time-out, and the page
      // and `/metrics` answer 503 meanwhile.
      mayGo: { client in
        !client.session.streams && (client.incompleteSince != nil || client.connection.unsentByteCount == 0)
      },
      makeRoom: farewell(
        .text(.serviceUnavailable, "Closed to make room for another client: this one was idle, or its request was not coming.")),
      full: farewell(.text(.serviceUnavailable, "Too many clients: at most \(configuration.maximumClients) at once.")))
  }

  private func received(_ bytes: UnsafeRawBufferPointer, from client: Client) {
    guard !client.session.streams else { return }  // a stream's client has nothing more to ask
    client.session.reader.append(bytes)
    var completed = false
    while let outcome = client.session.reader.next() {
      switch outcome {
      case .failure(let refusal):
        registry.dismiss(client, farewell: farewell(.text(refusal.status, refusal.reason)), counted: true)
        return
      case .success(let request):
        completed = true
        requests += 1
        answer(request, for: client)
        guard registry.client(client.id) != nil, !client.session.streams else { return }
      }
    }
    registry.heard(client, completed: completed, pending: client.session.reader.bufferedByteCount)
  }

  private func answer(_ request: HTTPRequest, for client: Client) {
    var response = respond(request, counters)
    if response.status == .methodNotAllowed { response.extraHeaders.append(("Allow", "GET, HEAD")) }
    let forHead = request.method == .head
    let keepsAlive = request.keepsAlive && response.status == .ok
    registry.send(response.bytes(forHead: forHead, keepsAlive: keepsAlive, server: configuration.serverName), to: client)
    guard registry.client(client.id) != nil else { return }
    if response.isEventStream, !forHead {
      client.session.streams = true
      streams += 1
      // The browser's first event comes at once, not at the next publish.
      registry.send(Array("retry: 2000\n\n".utf8), to: client)
    } else if !keepsAlive {
      registry.finish(client)
    }
  }

  /// `response`, for a client let go: its slot is free at once, its last bytes are read until
  /// it hangs up, so it reads the answer rather than a reset.
  private func farewell(_ response: HTTPResponse) -> [UInt8] {
    response.bytes(forHead: false, keepsAlive: false, server: configuration.serverName)
  }

  /// Once a second: requests left incomplete too long are answered 408 and closed, kept-alive
  /// connections idle too long are closed, clients told why a moment ago are closed for good,
  /// and event streams hear a heartbeat now and then.
  private func tick() {
    let now = ContinuousClock.now
    for client in Array(registry.clients) where !client.session.streams {
      if let since = client.incompleteSince, since.duration(to: now) > configuration.requestTimeout {
        registry.dismiss(
          client, farewell: farewell(.text(.requestTimeout, "The request stayed incomplete for \(configuration.requestTimeout).")),
          counted: true)
      } else if client.incompleteSince == nil, client.lastHeard.duration(to: now) > configuration.idleTimeout {
        registry.close(client)
      }
    }
    registry.sweep(now: now)
    if lastHeartbeat.duration(to: now) >= configuration.heartbeat {
      lastHeartbeat = now
      for client in Array(registry.clients) where client.session.streams { registry.send(Array(": heartbeat\n\n".utf8), to: client) }
    }
  }
}
