extension FileDescriptor {
  /// Connects a TCP socket to `host:port` (a name, IPv4 or IPv6), trying each address in
  /// turn, giving up on each after `timeout` seconds. The socket is left non-blocking with
  /// TCP keepalive on (idle 10 s, then 3 probes 5 s apart), so a peer that vanished without
  /// closing (a pulled cable, a suspended host) is noticed within about half a minute even
  /// when no data is expected. The corresponding C functions are `getaddrinfo(3)`,
  /// `socket(2)`, `connect(2)` and `setsockopt(2)`.
  ///
  /// It blocks in `connect(2)`: for tests and tools. The program connects with
  /// ``TCPConnect/connect(host:port:timeout:)``, which holds no thread.
  package static func connectTCP(host: String, port: Int, timeout: Int = 3) throws(ConnectFailure) -> FileDescriptor {
    try withTCPAddresses(host: host, port: port) { (first) throws(ConnectFailure) in try connectTCP(first, timeout: timeout) }
  }

  /// Tries each address from `first` on, as ``connectTCP(host:port:timeout:)`` describes.
  private static func connectTCP(_ first: UnsafeMutablePointer<addrinfo>, timeout: Int) throws(ConnectFailure) -> FileDescriptor {
    var lastError = Errno.connectionRefused
    var entry: UnsafeMutablePointer<addrinfo>? = first
    while let address = entry {
      entry = address.pointee.ai_next
      let fd = socket(address.pointee.ai_family, streamSocket | socketCloseOnExec, 0)
      guard fd >= 0 else { lastError = .current; continue }
      var sendTimeout = timeval(tv_sec: timeout, tv_usec: 0)
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
      let connected = withRetryOnInterrupt { system_connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) }
      guard connected == 0 else {
        lastError = .current
        _ = system_close(fd)
        continue
      }
      let socket = FileDescriptor(rawValue: fd)
      socket.noticesVanishedPeers()
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      return socket
    }
    throw .system(lastError)
  }
}

extension FileDescriptor {
  /// A non-blocking UDP socket whose datagrams go to `host:port` (`connect(2)` on a datagram
  /// socket only sets where they go), allowed to broadcast when `broadcast`.
  package static func udpSender(host: String, port: Int, broadcast: Bool) throws(ConnectFailure) -> FileDescriptor {
    try withTCPAddresses(host: host, port: port, socketType: datagramSocket) { (first) throws(ConnectFailure) in
      let fd = socket(first.pointee.ai_family, datagramSocket | socketCloseOnExec, 0)
      guard fd >= 0 else { throw .system(.current) }
      var on: CInt = broadcast ? 1 : 0
      setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &on, socklen_t(MemoryLayout<CInt>.size))
      guard system_connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
        let error = Errno.current
        _ = system_close(fd)
        throw .system(error)
      }
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      return FileDescriptor(rawValue: fd)
    }
  }

  /// Looks up `host:port` for a TCP socket (`passive`: one to listen on), or one of
  /// `socketType`, and hands the list of addresses to `body`, freeing it afterwards. The
  /// corresponding C function is `getaddrinfo(3)`.
  static func withTCPAddresses<Result>(
    host: String, port: Int, passive: Bool = false, socketType: Int32 = streamSocket,
    _ body: (UnsafeMutablePointer<addrinfo>) throws(ConnectFailure) -> Result
  ) throws(ConnectFailure) -> Result {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = socketType
    if passive { hints.ai_flags = AI_PASSIVE }
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, String(port), &hints, &list)
    guard status == 0, let first = list else {
      // EAI_AGAIN is a name server that did not answer: that may pass. The rest say the name
      // is not known.
      throw status == EAI_AGAIN || status == EAI_SYSTEM ? .lookupUnanswered(host) : .unknownHost(host)
    }
    defer { freeaddrinfo(first) }
    return try body(first)
  }
}

/// Why a TCP connection could not be made.
package enum ConnectFailure: Error, Equatable {
  /// The host's name does not resolve.
  case unknownHost(String)
  /// The name server did not answer (it may later).
  case lookupUnanswered(String)
  /// A system call failed: `ECONNREFUSED` (nothing listening), `ETIMEDOUT`, `ENETUNREACH`, …
  case system(Errno)
}

private func withRetryOnInterrupt(_ call: () -> CInt) -> CInt {
  while true {
    let result = call()
    if result == -1 && errno == EINTR { continue }
    return result
  }
}

extension FileDescriptor {
  /// Turns TCP keepalive on (idle 10 s, then 3 probes 5 s apart), so a peer that vanished
  /// without closing (a pulled cable, a suspended host) is noticed within about half a minute
  /// even when no data is expected.
  package func noticesVanishedPeers() {
    var on: CInt = 1, idle: CInt = 10, interval: CInt = 5, count: CInt = 3
    setsockopt(rawValue, SOL_SOCKET, SO_KEEPALIVE, &on, socklen_t(MemoryLayout<CInt>.size))
    setsockopt(rawValue, CInt(IPPROTO_TCP), tcpKeepaliveIdle, &idle, socklen_t(MemoryLayout<CInt>.size))
    setsockopt(rawValue, CInt(IPPROTO_TCP), TCP_KEEPINTVL, &interval, socklen_t(MemoryLayout<CInt>.size))
    setsockopt(rawValue, CInt(IPPROTO_TCP), TCP_KEEPCNT, &count, socklen_t(MemoryLayout<CInt>.size))
  }

  /// Turns Nagle's algorithm off (`TCP_NODELAY`): each write goes at once, rather than wait
  /// for the peer to acknowledge the last one, which a peer's delayed acknowledgement makes
  /// 40 ms. For protocols of small messages whose latency counts (MQTT).
  package func sendsAtOnce() {
    var on: CInt = 1
    setsockopt(rawValue, CInt(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<CInt>.size))
  }
}
