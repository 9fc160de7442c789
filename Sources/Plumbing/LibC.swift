// The C library, imported in this one place for the whole package: Glibc on most Linux
// systems, Musl with the static Linux SDK, Darwin on macOS. Everything else imports Plumbing.
// The few constants whose spelling differs between them are given one name here.
#if canImport(Glibc)
  @_exported import Glibc
#elseif canImport(Musl)
  @_exported import Musl
#elseif canImport(Darwin)
  @_exported import Darwin
#else
  #error("gpsbridge needs a C library: Glibc, Musl or Darwin.")
#endif

#if canImport(Glibc)
  /// `SOCK_STREAM`: Glibc imports it as an enum.
  package let streamSocket = Int32(SOCK_STREAM.rawValue)
  /// `SOCK_DGRAM`.
  package let datagramSocket = Int32(SOCK_DGRAM.rawValue)
  /// `SOCK_CLOEXEC`, or 0 where `socket(2)` has no such flag (Darwin sets it with fcntl).
  package let socketCloseOnExec = Int32(SOCK_CLOEXEC.rawValue)
#elseif canImport(Musl)
  package let streamSocket = Int32(SOCK_STREAM)
  package let datagramSocket = Int32(SOCK_DGRAM)
  package let socketCloseOnExec = Int32(SOCK_CLOEXEC)
#else
  package let streamSocket = Int32(SOCK_STREAM)
  package let datagramSocket = Int32(SOCK_DGRAM)
  package let socketCloseOnExec: Int32 = 0
#endif

#if canImport(Darwin)
  /// The TCP keepalive idle time option: `TCP_KEEPALIVE` on Darwin, `TCP_KEEPIDLE` elsewhere.
  package let tcpKeepaliveIdle = TCP_KEEPALIVE
  /// The serial speeds termios can set, in bits per second (Darwin stops at 230400 here).
  package let terminalSpeeds: [(Int, speed_t)] = [
    (4800, speed_t(B4800)), (9600, speed_t(B9600)), (19200, speed_t(B19200)), (38400, speed_t(B38400)),
    (57600, speed_t(B57600)), (115200, speed_t(B115200)), (230400, speed_t(B230400)),
  ]
#else
  package let tcpKeepaliveIdle = TCP_KEEPIDLE
  package let terminalSpeeds: [(Int, speed_t)] = [
    (4800, speed_t(B4800)), (9600, speed_t(B9600)), (19200, speed_t(B19200)), (38400, speed_t(B38400)),
    (57600, speed_t(B57600)), (115200, speed_t(B115200)), (230400, speed_t(B230400)),
    (460800, speed_t(B460800)), (921600, speed_t(B921600)),
  ]
#endif
