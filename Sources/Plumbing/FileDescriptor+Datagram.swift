extension FileDescriptor {
  /// Sends `bytes` as one datagram on `socket` to the Unix socket at `path`, without waiting
  /// (the socket should be non-blocking): the error says why it could not go (`ENOENT` or
  /// `ECONNREFUSED` when nobody listens there, `EAGAIN` when the listener's queue is full).
  package static func sendDatagram(_ socket: FileDescriptor, _ bytes: UnsafeRawBufferPointer, toUnixPath path: String)
    -> Result<Void, Errno>
  {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let pathBytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard pathBytes.count < capacity else { return .failure(.nameTooLong) }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: pathBytes)
      raw[pathBytes.count] = 0
    }
    let sent = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        sendto(socket.rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), pointer, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    return sent < 0 ? .failure(Errno.current) : .success(())
  }
}
