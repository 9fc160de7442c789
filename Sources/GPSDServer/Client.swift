import Dispatch
import GPSD
import Plumbing

/// One connected client: its socket, what it asked to watch, its half-read requests, and the
/// output it has not taken yet. Lives on the server's queue.
final class Client: @unchecked Sendable {
  let id: Int
  private let socket: FileDescriptor
  private let queue: DispatchQueue
  var watch = GPSDWatch()
  var requests = GPSDRequestReader()
  /// When the client last completed a request (or connected): only complete requests count,
  /// so a client that dribbles bytes is not kept alive by them.
  var lastHeard = ContinuousClock.now
  /// Since when bytes of a request not yet complete have been waiting.
  var incompleteSince: ContinuousClock.Instant?
  /// Since when the client has been on its way out: told why, its writing side shut, its
  /// last bytes read and dropped, so that it reads the farewell rather than a reset.
  var leavingSince: ContinuousClock.Instant?
  /// Output not yet sent, from `sent` on.
  private var outgoing: [UInt8] = []
  private var sent = 0
  private var readSource: (any DispatchSourceRead)?
  private var writeSource: (any DispatchSourceWrite)?
  private var writeSourceRunning = false
  private var closed = false
  /// Sources whose cancel handler has not run: the socket is closed only after the last,
  /// since a number closed earlier may be reused by the next client while a source still
  /// watches it.
  private var liveSources = 0
  private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)

  init(id: Int, socket: FileDescriptor, queue: DispatchQueue) {
    self.id = id
    self.socket = socket
    self.queue = queue
  }

  deinit {
    buffer.deallocate()
  }

  /// Starts reading: `onBytes` for what arrives, `onWritable` when a full socket drains,
  /// `onClosed` when the client goes.
  func start(
    onBytes: @escaping (UnsafeRawBufferPointer) -> Void, onWritable: @escaping () -> Void, onClosed: @escaping () -> Void
  ) {
    let read = DispatchSource.makeReadSource(fileDescriptor: socket.rawValue, queue: queue)
    read.setEventHandler { [weak self] in
      guard let self, !closed else { return }
      do throws(Errno) {
        let count = try socket.read(into: buffer)
        guard count > 0 else {
          close()
          onClosed()
          return
        }
        onBytes(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
      } catch .wouldBlock {
        return
      } catch {
        close()
        onClosed()
      }
    }
    // Held strongly: the client must outlive its sources to close its socket after them.
    read.setCancelHandler { self.sourceCancelled() }
    read.resume()
    readSource = read
    let write = DispatchSource.makeWriteSource(fileDescriptor: socket.rawValue, queue: queue)
    write.setEventHandler { [weak self] in
      guard let self else { return }
      write.suspend()
      writeSourceRunning = false
      onWritable()
    }
    write.setCancelHandler { self.sourceCancelled() }
    writeSource = write
    liveSources = 2
  }

  /// Adds `bytes` to the output; `false` when that would hold more than `limit` unsent bytes.
  func queue(_ bytes: [UInt8], limit: Int) -> Bool {
    guard !closed else { return true }
    guard outgoing.count - sent + bytes.count <= limit else { return false }
    if sent > 0, sent >= outgoing.count / 2 {
      outgoing.removeFirst(sent)
      sent = 0
    }
    outgoing.append(contentsOf: bytes)
    return true
  }

  /// Sends what the socket takes now; when it is full, waits for it to drain (the server is
  /// told through `onWritable`). `false` when the client has gone.
  func flush() -> Bool {
    guard !closed else { return false }
    while sent < outgoing.count {
      let count: Int
      do {
        count = try outgoing.withUnsafeBytes { raw in
          try Result { () throws(Errno) in try socket.sendSome(UnsafeRawBufferPointer(rebasing: raw[sent...])) }.get()
        }
      } catch {
        return false
      }
      if count == 0 {
        if !writeSourceRunning {
          writeSourceRunning = true
          writeSource?.resume()
        }
        return true
      }
      sent += count
    }
    outgoing.removeAll(keepingCapacity: true)
    sent = 0
    return true
  }

  /// Shuts the sending side once the queued output is in the kernel: the client reads what
  /// was sent, then the end.
  func shutDownSending() {
    _ = flush()
    shutdown(socket.rawValue, Int32(SHUT_WR))
  }

  func close() {
    guard !closed else { return }
    closed = true
    guard liveSources > 0 else {
      try? socket.close()
      return
    }
    readSource?.cancel()
    if let writeSource {
      if !writeSourceRunning { writeSource.resume() }
      writeSource.cancel()
    }
  }

  private func sourceCancelled() {
    liveSources -= 1
    if liveSources == 0 { try? socket.close() }
  }
}
