import Dispatch

/// A TCP connection this process makes (to an MQTT broker, an NTRIP caster), read and written
/// on Dispatch: every wait is a Dispatch source or timer on the connection's serial queue and
/// a continuation, so no thread is held in `poll` or a blocking call while the peer is slow,
/// silent or gone. The protocol's own logic stays the plain sequence it is ("send CONNECT,
/// await CONNACK within 10 s"), written with `await`.
///
/// One operation of each kind at a time: one ``receive(within:)`` and one ``send(_:within:)``
/// may wait together, never two of one kind. Neither ends because its task is cancelled: a
/// client that stops still says goodbye (MQTT's DISCONNECT). ``wake()`` ends a waiting
/// receive early instead (a message to publish, a stop), and ``close()`` ends everything.
package final class ClientConnection: @unchecked Sendable {
  /// What a receive found.
  package enum Received: Equatable, Sendable {
    case bytes([UInt8])
    /// Nothing came within the time given.
    case quiet
    /// ``wake()`` was called (before or while it waited).
    case woken
    /// The peer closed the connection, it broke, or ``close()`` was called.
    case closed
  }

  private let socket: FileDescriptor
  private let queue: DispatchQueue
  /// Touched on `queue` only, as is everything below.
  private var readSource: (any DispatchSourceRead)?
  /// Whether the read source runs: only while a receive waits. (Linux's Dispatch re-arms a
  /// source after each event, so one left running while bytes wait unread would fire again
  /// and again.)
  private var readSourceRunning = false
  private var writeSource: (any DispatchSourceWrite)?
  private var writeSourceRunning = false
  private var receiving: (continuation: CheckedContinuation<Received, Never>, timer: any DispatchSourceTimer)?
  private var sending:
    (continuation: CheckedContinuation<Bool, Never>, timer: any DispatchSourceTimer, bytes: [UInt8], sent: Int, room: DispatchTimeInterval)?
  private var woken = false
  private var closed = false
  private var liveSources = 0
  private var closeWaiters: [CheckedContinuation<Void, Never>] = []
  private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 16)

  /// A connection over `socket`, connected and non-blocking, which it owns from now on.
  package init(socket: FileDescriptor, label: String) {
    self.socket = socket
    queue = DispatchQueue(label: label)
    queue.async { [self] in startSources() }
  }

  deinit {
    buffer.deallocate()
  }

  /// Connects to `host:port` (a name, IPv4 or IPv6), trying each address in turn for up to
  /// `timeout` each; TCP keepalive on, as ``FileDescriptor/connectTCP(host:port:timeout:)``
  /// sets it. `noDelay` turns Nagle's algorithm off, for small messages whose latency counts.
  package static func connect(
    host: String, port: Int, timeout: Duration = .seconds(3), noDelay: Bool = false, label: String
  ) async throws(ConnectFailure) -> ClientConnection {
    let socket = try await TCPConnect.connect(host: host, port: port, timeout: timeout)
    if noDelay { socket.sendsAtOnce() }
    return ClientConnection(socket: socket, label: label)
  }

  private func startSources() {
    guard !closed else { return }
    let read = DispatchSource.makeReadSource(fileDescriptor: socket.rawValue, queue: queue)
    read.setEventHandler { [self] in readIfAwaited() }
    read.setCancelHandler { [self] in sourceCancelled() }
    let write = DispatchSource.makeWriteSource(fileDescriptor: socket.rawValue, queue: queue)
    write.setEventHandler { [self] in
      write.suspend()
      writeSourceRunning = false
      sendWhatWaits()
    }
    write.setCancelHandler { [self] in sourceCancelled() }
    readSource = read
    writeSource = write
    liveSources = 2
  }

  /// What the peer sends next, up to 16 KiB: what is waiting in the socket at once, else the
  /// first bytes that come within `timeout`.
  package func receive(within timeout: Duration) async -> Received {
    await withCheckedContinuation { continuation in
      queue.async { [self] in
        precondition(receiving == nil, "one receive at a time")
        if woken {
          woken = false
          return continuation.resume(returning: .woken)
        }
        if closed { return continuation.resume(returning: .closed) }
        if let now = readNow() { return continuation.resume(returning: now) }
        // Nothing yet: the read source's next event or the timer, first wins.
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + timeout.dispatchInterval)
        timer.setEventHandler { [self] in endReceive(.quiet) }
        receiving = (continuation, timer)
        timer.activate()
        if !readSourceRunning {
          readSourceRunning = true
          readSource?.resume()
        }
      }
    }
  }

  /// Reads what the socket holds now: `nil` when it holds nothing yet.
  private func readNow() -> Received? {
    do throws(Errno) {
      let count = try socket.read(into: buffer)
      return count > 0 ? .bytes(Array(buffer[0..<count])) : .closed
    } catch .wouldBlock {
      return nil
    } catch {
      return .closed
    }
  }

  private func readIfAwaited() {
    guard receiving != nil, let now = readNow() else { return }
    endReceive(now)
  }

  private func endReceive(_ outcome: Received) {
    guard let (continuation, timer) = receiving else { return }
    receiving = nil
    timer.cancel()
    if readSourceRunning, !closed {
      readSourceRunning = false
      readSource?.suspend()
    }
    continuation.resume(returning: outcome)
  }

  /// Sends all of `bytes`: `false` when the peer is gone, or takes none of them for `timeout`
  /// (each time the socket is full, it has that long to make room).
  package func send(_ bytes: [UInt8], within timeout: Duration = .seconds(5)) async -> Bool {
    await withCheckedContinuation { continuation in
      queue.async { [self] in
        precondition(sending == nil, "one send at a time")
        guard !closed else { return continuation.resume(returning: false) }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [self] in endSend(false) }
        sending = (continuation, timer, bytes, 0, timeout.dispatchInterval)
        timer.schedule(deadline: .now() + timeout.dispatchInterval)
        timer.activate()
        sendWhatWaits()
      }
    }
  }

  private func sendWhatWaits() {
    guard var current = sending else { return }
    while current.sent < current.bytes.count {
      let start = current.sent
      let attempt = current.bytes.withUnsafeBytes { raw in
        Result { () throws(Errno) in try socket.sendSome(UnsafeRawBufferPointer(rebasing: raw[start...])) }
      }
      guard case .success(let count) = attempt else { return endSend(false) }
      if count == 0 {
        // Full: the write source says when there is room; the timer starts its time again.
        sending = current
        current.timer.schedule(deadline: .now() + current.room)
        if !writeSourceRunning {
          writeSourceRunning = true
          writeSource?.resume()
        }
        return
      }
      current.sent += count
    }
    sending = current
    endSend(true)
  }

  private func endSend(_ outcome: Bool) {
    guard let current = sending else { return }
    sending = nil
    current.timer.cancel()
    current.continuation.resume(returning: outcome)
  }

  /// Whether a ``receive(within:)`` waits now: a test wakes or closes a wait once it is one.
  package var isReceiving: Bool { queue.sync { receiving != nil } }

  /// Ends a waiting ``receive(within:)`` with ``Received/woken``, or the next one if none waits.
  package func wake() {
    queue.async { [self] in
      if receiving != nil { endReceive(.woken) } else { woken = true }
    }
  }

  /// Ends what waits and closes the socket once Dispatch has let go of it.
  package func close() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      queue.async { [self] in
        if !closed {
          closed = true
          endReceive(.closed)
          endSend(false)
          if liveSources == 0 {
            try? socket.close()
          } else {
            // A suspended (or never started) source never completes its cancellation.
            if !readSourceRunning { readSource?.resume() }
            readSourceRunning = true
            readSource?.cancel()
            if !writeSourceRunning { writeSource?.resume() }
            writeSourceRunning = true
            writeSource?.cancel()
          }
        }
        if liveSources == 0 { return continuation.resume() }
        closeWaiters.append(continuation)
      }
    }
  }

  private func sourceCancelled() {
    liveSources -= 1
    guard liveSources == 0 else { return }
    readSource = nil
    writeSource = nil
    try? socket.close()
    let waiters = closeWaiters
    closeWaiters = []
    for waiter in waiters { waiter.resume() }
  }
}
