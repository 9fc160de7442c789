import Dispatch

/// One accepted socket served on a server's serial queue: what arrives is handed on as it is
/// read, and output goes out without ever blocking the queue. What the socket does not take
/// now is kept, up to a limit the caller gives, and sent when it drains; a peer that stops
/// reading is found out by that limit, not by a queue that grows without bound. The gpsd port
/// and the HTTP port serve their clients through it.
package final class SocketConnection: @unchecked Sendable {
  package let socket: FileDescriptor
  private let queue: DispatchQueue
  /// Output not yet sent, from `sent` on.
  private var outgoing: [UInt8] = []
  private var sent = 0
  private var readSource: (any DispatchSourceRead)?
  private var writeSource: (any DispatchSourceWrite)?
  private var writeSourceRunning = false
  package private(set) var isClosed = false
  /// Set by ``shutDownSending()``: the sending side is shut once what is queued has gone.
  private var shutsDownWhenDrained = false
  /// Sources whose cancel handler has not run: the socket is closed only after the last,
  /// since a number closed earlier may be reused by the next connection while a source still
  /// watches it.
  private var liveSources = 0
  /// Where requests are read, shared by every connection of a server: all read on its queue.
  private let buffer: ReadBuffer

  package init(socket: FileDescriptor, queue: DispatchQueue, buffer: ReadBuffer) {
    self.socket = socket
    self.queue = queue
    self.buffer = buffer
  }

  /// Starts reading: `onBytes` for what arrives, `onWritable` when a full socket drains,
  /// `onClosed` when the peer goes.
  package func start(
    onBytes: @escaping (UnsafeRawBufferPointer) -> Void, onWritable: @escaping () -> Void, onClosed: @escaping () -> Void
  ) {
    let read = DispatchSource.makeReadSource(fileDescriptor: socket.rawValue, queue: queue)
    read.setEventHandler { [weak self] in
      guard let self, !isClosed else { return }
      do throws(Errno) {
        let count = try socket.read(into: buffer.bytes)
        guard count > 0 else {
          close()
          onClosed()
          return
        }
        onBytes(UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<count]))
      } catch .wouldBlock {
        return
      } catch {
        close()
        onClosed()
      }
    }
    // Held strongly: the connection must outlive its sources to close its socket after them.
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

  /// Whether the peer has gone, asked of the socket now (a look at what waits to be read,
  /// without taking it or waiting): nothing left but the end of file, or a reset (a peer that
  /// closes with our bytes unread resets the connection).
  package var peerHasClosed: Bool {
    guard !isClosed else { return true }
    var byte: UInt8 = 0
    let count = recv(socket.rawValue, &byte, 1, CInt(MSG_PEEK | MSG_DONTWAIT))
    return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
  }

  /// Bytes sent but not yet taken by the socket.
  package var unsentByteCount: Int { outgoing.count - sent }

  /// Adds `bytes` to the output; `false` when that would hold more than `limit` unsent bytes.
  /// With nothing waiting they go straight to the socket, and only what it does not take now
  /// is kept: a peer that keeps up holds no output of its own (64 of them, no 64 copies).
  package func queue(_ bytes: [UInt8], limit: Int) -> Bool {
    guard !isClosed else { return true }
    if sent == outgoing.count, !writeSourceRunning {
      // An error is found out by the flush that follows, which sends what is kept.
      let taken = (try? bytes.withUnsafeBytes { raw throws(Errno) in try socket.sendSome(raw) }) ?? 0
      guard taken < bytes.count else { return true }
      guard bytes.count - taken <= limit else { return false }
      outgoing = Array(bytes[taken...])
      sent = 0
      return true
    }
    guard outgoing.count - sent + bytes.count <= limit else { return false }
    if sent > 0, sent >= outgoing.count / 2 {
      outgoing.removeFirst(sent)
      sent = 0
    }
    outgoing.append(contentsOf: bytes)
    return true
  }

  /// Sends what the socket takes now; when it is full, waits for it to drain (the server is
  /// told through `onWritable`). `false` when the peer has gone.
  package func flush() -> Bool {
    guard !isClosed else { return false }
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
    // Drained: the memory goes too, until the socket is full again.
    outgoing = []
    sent = 0
    if shutsDownWhenDrained { shutdown(socket.rawValue, Int32(SHUT_WR)) }
    return true
  }

  /// Shuts the sending side once the queued output is in the kernel (now, or when the socket
  /// has drained): the peer reads all that was sent, then the end.
  package func shutDownSending() {
    shutsDownWhenDrained = true
    _ = flush()
  }

  package func close() {
    guard !isClosed else { return }
    isClosed = true
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

/// A buffer for reading requests, shared by the connections of one server (they all read on
/// its queue, one at a time), and freed with the last of them.
package final class ReadBuffer: @unchecked Sendable {
  package let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
  package init() {}
  deinit { bytes.deallocate() }
}
