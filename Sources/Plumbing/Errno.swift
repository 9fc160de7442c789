/// A POSIX error number: only the ones gpsbridge meets, each named after its C constant.
package struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
  package var rawValue: CInt
  package init(rawValue: CInt) { self.rawValue = rawValue }

  /// `EINTR`: a signal interrupted the call; it is retried.
  package static let interrupted = Errno(rawValue: EINTR)
  /// `EAGAIN`: on a non-blocking descriptor, no data yet. Not a failure.
  package static let wouldBlock = Errno(rawValue: EAGAIN)
  /// `EACCES`: permission denied (not in the `dialout` group, or no udev rule).
  package static let permissionDenied = Errno(rawValue: EACCES)
  /// `EPERM`: operation not permitted.
  package static let notPermitted = Errno(rawValue: EPERM)
  /// `ENOENT`: no such file or directory (device not plugged in).
  package static let noSuchFile = Errno(rawValue: ENOENT)
  /// `ENODEV`: no such device (unplugged while open).
  package static let noSuchDevice = Errno(rawValue: ENODEV)
  /// `EBUSY`: device busy (another process holds it exclusively).
  package static let busy = Errno(rawValue: EBUSY)
  /// `ENOTTY`: not a terminal (the path is a plain file or another kind of device).
  package static let notATerminal = Errno(rawValue: ENOTTY)
  /// `EISDIR`: the path is a directory.
  package static let isDirectory = Errno(rawValue: EISDIR)
  /// `ENXIO`: no such device or address (a pty whose other side is closed).
  package static let noSuchDeviceOrAddress = Errno(rawValue: ENXIO)

  /// `EINVAL`: invalid argument (an ioctl a device does not support).
  package static let invalidArgument = Errno(rawValue: EINVAL)
  /// `EWOULDBLOCK`: a lock held by another process (`flock` with `LOCK_NB`).
  package static let lockHeld = Errno(rawValue: EWOULDBLOCK)
  /// `EPIPE`: the reader of a pipe or socket has gone (`gpsbridge | head`).
  package static let brokenPipe = Errno(rawValue: EPIPE)
  /// `EADDRINUSE`: another program listens on that port.
  package static let addressInUse = Errno(rawValue: EADDRINUSE)
  /// `ECONNABORTED`: a connection went away before it was accepted.
  package static let connectionAborted = Errno(rawValue: ECONNABORTED)
  /// `ECONNREFUSED`: nothing listens on that port.
  package static let connectionRefused = Errno(rawValue: ECONNREFUSED)
  /// `ETIMEDOUT`: a wait ran out (a PPS fetch with no pulse).
  package static let timedOut = Errno(rawValue: ETIMEDOUT)
  /// `ENAMETOOLONG`: a path longer than a Unix socket address can hold.
  package static let nameTooLong = Errno(rawValue: ENAMETOOLONG)

  /// The C library's description, e.g. "Permission denied".
  package var description: String { String(cString: strerror(rawValue)) }

  /// The calling thread's current `errno`.
  package static var current: Errno { Errno(rawValue: errno) }
}
