import Dispatch

/// Connecting a TCP socket without holding a thread in `connect(2)`: each address is tried
/// with a non-blocking connect whose completion a Dispatch write source reports (or a timer
/// gives up on), as ``ClientConnection`` reads and writes.
package enum TCPConnect {
  /// A connected, non-blocking socket to `host:port` (a name, IPv4 or IPv6), each address
  /// tried in turn for up to `timeout`, with TCP keepalive on
  /// (``FileDescriptor/noticesVanishedPeers()``).
  ///
  /// The name lookup (`getaddrinfo(3)`) is the one blocking call: the kernel offers no
  /// readiness for it. It runs on a Dispatch worker, never the cooperative pool; a numeric
  /// address answers at once.
  package static func connect(host: String, port: Int, timeout: Duration) async throws(ConnectFailure) -> FileDescriptor {
    let addresses = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(
          returning: Result { () throws(ConnectFailure) in
            try FileDescriptor.withTCPAddresses(host: host, port: port) { first in
              var found: [Address] = []
              var entry: UnsafeMutablePointer<addrinfo>? = first
              while let address = entry {
                entry = address.pointee.ai_next
                found.append(Address(address.pointee))
              }
              return found
            }
          })
      }
    }
    var lastError = Errno.connectionRefused
    for address in try addresses.get() {
      switch await attempt(address, timeout: timeout) {
      case .success(let socket): return socket
      case .failure(let error): lastError = error
      }
    }
    throw .system(lastError)
  }

  /// One address, copied out of the lookup's list (freed once the lookup returns).
  private struct Address: @unchecked Sendable {
    let family: CInt
    let bytes: [UInt8]

    init(_ info: addrinfo) {
      family = info.ai_family
      bytes = Array(UnsafeRawBufferPointer(start: info.ai_addr, count: Int(info.ai_addrlen)))
    }
  }

  private static func attempt(_ address: Address, timeout: Duration) async -> Result<FileDescriptor, Errno> {
    let fd = socket(address.family, streamSocket | socketCloseOnExec, 0)
    guard fd >= 0 else { return .failure(.current) }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    let started = address.bytes.withUnsafeBytes { raw in
      system_connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
    }
    if started != 0, errno != EINPROGRESS, errno != EINTR {
      let error = Errno.current
      _ = system_close(fd)
      return .failure(error)
    }
    if started != 0 {
      let outcome = await connected(fd, timeout: timeout)
      guard outcome == 0 else {
        _ = system_close(fd)
        return .failure(Errno(rawValue: outcome))
      }
    }
    let socket = FileDescriptor(rawValue: fd)
    socket.noticesVanishedPeers()
    return .success(socket)
  }

  /// Waits for a connect in progress on `fd`: 0 once connected, else its error (`ETIMEDOUT`
  /// when `timeout` passed first). Returns only once Dispatch has let go of `fd`.
  private static func connected(_ fd: CInt, timeout: Duration) async -> CInt {
    await withCheckedContinuation { continuation in
      let queue = DispatchQueue(label: "gpsbridge.connect")
      let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
      let timer = DispatchSource.makeTimerSource(queue: queue)
      // Touched on `queue` only.
      nonisolated(unsafe) var outcome: CInt?
      func end(_ result: CInt) {
        guard outcome == nil else { return }
        outcome = result
        timer.cancel()
        source.cancel()
      }
      source.setEventHandler {
        var error: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        end(error)
      }
      source.setCancelHandler { continuation.resume(returning: outcome ?? ETIMEDOUT) }
      timer.setEventHandler { end(ETIMEDOUT) }
      timer.schedule(deadline: .now() + timeout.dispatchInterval)
      source.activate()
      timer.activate()
    }
  }
}
