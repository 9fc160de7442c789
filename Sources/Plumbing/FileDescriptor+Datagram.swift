extension FileDescriptor {
  /// Sends `bytes` as one datagram on `socket` to the Unix socket at `path` (abstract when it
  /// starts with a zero byte), without waiting when the socket is non-blocking. The error says
  /// why it could not go: `ENOENT` or `ECONNREFUSED` when nobody listens there, `EAGAIN` when
  /// the listener's queue is full.
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
    // The exact length: an abstract name (a leading zero byte) is all of its bytes and no more.
    let isAbstract = pathBytes.first == 0
    let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count + (isAbstract ? 0 : 1))
    let sent = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        sendto(socket.rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), pointer, length)
      }
    }
    return sent < 0 ? .failure(Errno.current) : .success(())
  }
}
