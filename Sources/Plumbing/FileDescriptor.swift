/// An open file descriptor, with the few operations gpsbridge needs, each wrapping one
/// system call, retrying `EINTR` and throwing ``Errno``.
package struct FileDescriptor: Hashable, Sendable {
  package let rawValue: CInt
  package init(rawValue: CInt) { self.rawValue = rawValue }

  package static let standardInput = FileDescriptor(rawValue: 0)
  package static let standardOutput = FileDescriptor(rawValue: 1)
  package static let standardError = FileDescriptor(rawValue: 2)

  /// Opens `path` with `flags` (`O_RDONLY`, `O_RDWR | O_NOCTTY | O_NONBLOCK`, …).
  /// The corresponding C function is `open(2)`.
  package static func open(_ path: String, _ flags: CInt, mode: mode_t = 0o644) throws(Errno) -> FileDescriptor {
    let fd = try valueOrErrno { path.withCString { system_open($0, flags | O_CLOEXEC, mode) } }
    return FileDescriptor(rawValue: fd)
  }

  /// Reads up to `buffer.count` bytes; 0 means end of file. On a non-blocking descriptor
  /// with nothing to read it throws ``Errno/wouldBlock``. The corresponding C function is `read(2)`.
  package func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    try valueOrErrno { system_read(rawValue, buffer.baseAddress, buffer.count) }
  }

  /// Opens `path` for reading, or gives standard input for `-`, as command-line tools take it.
  package static func openForReading(_ path: String) throws(Errno) -> FileDescriptor {
    path == "-" ? .standardInput : try open(path, O_RDONLY)
  }

  /// Reads up to `buffer.count` bytes into the start of `buffer`; 0 means end of file.
  package func read(into buffer: inout [UInt8]) throws(Errno) -> Int {
    try buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try read(into: raw) } }.get()
  }

  /// Writes what the descriptor takes now of `bytes`, giving how many; on a non-blocking
  /// descriptor that takes nothing now it throws ``Errno/wouldBlock``. The corresponding C
  /// function is `write(2)`.
  package func write(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
    try valueOrErrno { system_write(rawValue, bytes.baseAddress, bytes.count) }
  }

  /// Writes what it can of `bytes`, as ``write(_:)``, but to a socket whose peer has gone
  /// without raising `SIGPIPE` (which would end a program that did not ignore it): `EPIPE`
  /// is thrown instead. A descriptor that is no socket (a serial port) is written as usual.
  /// The corresponding C functions are `send(2)` with `MSG_NOSIGNAL`, and `write(2)`.
  package func writeWithoutSignal(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
    while true {
      let sent = send(rawValue, bytes.baseAddress, bytes.count, CInt(MSG_NOSIGNAL))
      if sent >= 0 { return sent }
      let error = Errno.current
      if error == .interrupted { continue }
      guard error.rawValue == ENOTSOCK else { throw error }
      return try write(bytes)
    }
  }

  /// Writes all of `bytes`, looping over partial writes. The corresponding C function is `write(2)`.
  package func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
    var offset = 0
    while offset < bytes.count {
      let written = try valueOrErrno { system_write(rawValue, bytes.baseAddress! + offset, bytes.count - offset) }
      offset += written
    }
  }

  package func writeAll<Bytes: Sequence<UInt8>>(_ bytes: Bytes) throws(Errno) {
    let array = Array(bytes)
    let result: Result<Void, Errno> = array.withUnsafeBytes { raw in Result { () throws(Errno) in try writeAll(raw) } }
    try result.get()
  }

  /// Closes the descriptor. Never retried: after `EINTR` the descriptor is already closed on
  /// Linux. The corresponding C function is `close(2)`.
  package func close() throws(Errno) {
    _ = try valueOrErrno(retryOnInterrupt: false) { system_close(rawValue) }
  }
}
