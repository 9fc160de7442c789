/// A pipe that wakes a thread blocked in `poll(2)`: ``wake()`` writes a byte from any
/// thread, the sleeper polls ``readEnd`` and ``drain()``s it. Both ends are non-blocking, so a
/// full pipe (wakes nobody has drained yet) costs nothing: one pending byte wakes as well as
/// many.
package struct WakePipe: Sendable {
  package let readEnd: FileDescriptor
  private let writeEnd: FileDescriptor

  package init() throws(Errno) {
    var ends: [CInt] = [-1, -1]
    _ = try valueOrErrno { pipe(&ends) }
    for end in ends {
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
    }
    readEnd = FileDescriptor(rawValue: ends[0])
    writeEnd = FileDescriptor(rawValue: ends[1])
  }

  /// Makes the next (or the current) `poll` on ``readEnd`` return.
  package func wake() {
    var byte: UInt8 = 1
    _ = system_write(writeEnd.rawValue, &byte, 1)
  }

  /// Empties the pipe, so the next `poll` sleeps until the next ``wake()``.
  package func drain() {
    var bytes = (UInt64(0), UInt64(0))
    while withUnsafeMutableBytes(of: &bytes, { system_read(readEnd.rawValue, $0.baseAddress, $0.count) }) > 0 {}
  }

  /// Closes both ends.
  package func close() {
    try? readEnd.close()
    try? writeEnd.close()
  }
}
