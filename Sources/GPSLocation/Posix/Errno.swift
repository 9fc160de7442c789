#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX error number: only the ones gpsbridge meets, each named after its C constant.
/// `catch Errno.permissionDenied` works through `~=`.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
  public var rawValue: CInt
  public init(rawValue: CInt) { self.rawValue = rawValue }

  /// `EINTR`: a signal interrupted the call; it is retried.
  public static let interrupted = Errno(rawValue: EINTR)
  /// `EAGAIN`: on a non-blocking descriptor, no data yet. Not a failure.
  public static let wouldBlock = Errno(rawValue: EAGAIN)
  /// `EACCES`: permission denied (not in the `dialout` group, or no udev rule).
  public static let permissionDenied = Errno(rawValue: EACCES)
  /// `EPERM`: operation not permitted.
  public static let notPermitted = Errno(rawValue: EPERM)
  /// `ENOENT`: no such file or directory (device not plugged in).
  public static let noSuchFile = Errno(rawValue: ENOENT)
  /// `ENODEV`: no such device (unplugged while open).
  public static let noSuchDevice = Errno(rawValue: ENODEV)
  /// `EIO`: input/output error (unplugged while reading).
  public static let ioError = Errno(rawValue: EIO)
  /// `EBUSY`: device busy (another process holds it exclusively).
  public static let busy = Errno(rawValue: EBUSY)
  /// `ENOTTY`: not a terminal (the path is a plain file or another kind of device).
  public static let notATerminal = Errno(rawValue: ENOTTY)
  /// `ENXIO`: no such device or address (a pty whose other side is closed).
  public static let noSuchDeviceOrAddress = Errno(rawValue: ENXIO)

  /// The C library's description, e.g. "Permission denied".
  public var description: String { String(cString: strerror(rawValue)) }

  /// The calling thread's current `errno`.
  public static var current: Errno { Errno(rawValue: errno) }

  public static func ~= (pattern: Errno, error: any Error) -> Bool {
    (error as? Errno) == pattern
  }
}
