extension FileDescriptor {
  /// A non-blocking TCP socket listening on `host:port` (an IPv4 or IPv6 address or a name
  /// that resolves to one; port 0 picks a free one), with `SO_REUSEADDR` so a restarted
  /// server gets its port back at once. The corresponding C functions are `getaddrinfo(3)`,
  /// `socket(2)`, `bind(2)` and `listen(2)`.
  package static func listenTCP(host: String, port: Int, backlog: CInt = 64) throws(ConnectFailure) -> FileDescriptor {
    try withTCPAddresses(host: host, port: port, passive: true) { (first) throws(ConnectFailure) in
      try listenTCP(first.pointee, backlog: backlog)
    }
  }

  /// Binds a socket to `address` and listens on it (see ``listenTCP(host:port:backlog:)``).
  private static func listenTCP(_ address: addrinfo, backlog: CInt) throws(ConnectFailure) -> FileDescriptor {
    let fd = socket(address.ai_family, streamSocket | socketCloseOnExec, 0)
    guard fd >= 0 else { throw .system(.current) }
    var on: CInt = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<CInt>.size))
    guard bind(fd, address.ai_addr, address.ai_addrlen) == 0, listen(fd, backlog) == 0 else {
      let error = Errno.current
      _ = system_close(fd)
      throw .system(error)
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    return FileDescriptor(rawValue: fd)
  }

  /// Whether this is a Unix-domain socket (not TCP).
  package var isUnixSocket: Bool {
    var address = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let result = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(rawValue, $0, &length) }
    }
    return result == 0 && address.ss_family == sa_family_t(AF_UNIX)
  }

  /// The port a listening socket is bound to.
  package var localPort: Int? {
    var address = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let result = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(rawValue, $0, &length) }
    }
    guard result == 0 else { return nil }
    switch CInt(address.ss_family) {
    case AF_INET:
      return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
      }
    case AF_INET6:
      return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
      }
    default:
      return nil
    }
  }

  /// Accepts a waiting connection as a non-blocking socket; `nil` when none is waiting. The
  /// corresponding C function is `accept(2)`.
  package func accept() throws(Errno) -> FileDescriptor? {
    while true {
      let fd = system_accept(rawValue)
      if fd >= 0 {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return FileDescriptor(rawValue: fd)
      }
      let error = Errno.current
      if error == .interrupted { continue }
      if error == .wouldBlock || error == .connectionAborted { return nil }
      throw error
    }
  }

  /// Sends what it can of `bytes` without blocking and without `SIGPIPE`; how many were
  /// sent (0 when the socket's buffer is full). The corresponding C function is `send(2)`.
  package func sendSome(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
    guard bytes.count > 0 else { return 0 }
    while true {
      let sent = send(rawValue, bytes.baseAddress, bytes.count, CInt(MSG_NOSIGNAL))
      if sent >= 0 { return sent }
      let error = Errno.current
      if error == .interrupted { continue }
      if error == .wouldBlock { return 0 }
      throw error
    }
  }
}
