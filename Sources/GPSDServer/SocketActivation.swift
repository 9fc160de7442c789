import Plumbing

/// systemd's ways of starting a daemon, spoken without libsystemd: the listening sockets a
/// socket unit hands over (`LISTEN_FDS`, `LISTEN_PID`), and the notifications a `Type=notify`
/// service sends (`NOTIFY_SOCKET`: `READY=1`, `STOPPING=1`, `WATCHDOG=1`).
public enum SocketActivation {
  /// The sockets handed over to this process, or `nil` when none were: `LISTEN_FDS`
  /// descriptors from 3 on, when `LISTEN_PID` names this process. The variables are removed,
  /// so programs this one starts do not take the sockets for theirs.
  /// - Throws: ``NotAListeningSocket`` when a descriptor handed over is not a listening
  ///   stream socket (a regular file, a datagram socket, a closed descriptor): serving it
  ///   would listen on nothing, or spin.
  public static func takeListeningSockets() throws(NotAListeningSocket) -> [Int32]? {
    guard let pid = environment("LISTEN_PID").flatMap(Int32.init), pid == getpid(),
      let count = environment("LISTEN_FDS").flatMap(Int32.init), count > 0, count < 1024
    else { return nil }
    for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
    let descriptors = (0..<count).map { 3 + $0 }
    for descriptor in descriptors {
      if let problem = problem(with: descriptor) { throw NotAListeningSocket(descriptor: descriptor, what: problem) }
      _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }
    return descriptors
  }

  /// A descriptor handed over that cannot be served.
  public struct NotAListeningSocket: Error, Sendable, CustomStringConvertible {
    public var descriptor: Int32
    /// What it is instead: "a regular file", "a socket that does not listen", …
    public var what: String
    public var description: String {
      "systemd handed over descriptor \(descriptor) (LISTEN_FDS), which is \(what), not a listening stream socket:"
        + " the socket unit needs ListenStream= lines only."
    }
  }

  /// What is wrong with `descriptor` as a listening stream socket, if anything.
  static func problem(with descriptor: Int32) -> String? {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return "not open" }
    switch status.st_mode & S_IFMT {
    case S_IFSOCK: break
    case S_IFREG: return "a regular file"
    case S_IFDIR: return "a directory"
    case S_IFIFO: return "a pipe"
    case S_IFCHR: return "a device"
    default: return "not a socket"
    }
    func option(_ name: Int32) -> Int32 {
      var value: Int32 = -1
      var length = socklen_t(MemoryLayout<Int32>.size)
      return getsockopt(descriptor, SOL_SOCKET, name, &value, &length) == 0 ? value : -1
    }
    guard option(SO_TYPE) == Int32(SOCK_STREAM.rawValue) else { return "a socket that is not a stream (a datagram socket?)" }
    guard option(SO_ACCEPTCONN) == 1 else { return "a socket that does not listen" }
    return nil
  }

  /// Tells the service manager `state` (`READY=1`, `STOPPING=1`, `WATCHDOG=1`, `STATUS=…`);
  /// does nothing when no manager listens (`NOTIFY_SOCKET` unset). `false` when sending failed.
  @discardableResult
  public static func notify(_ state: String) -> Bool {
    guard let path = environment("NOTIFY_SOCKET"), !path.isEmpty else { return true }
    // Non-blocking: a manager that stops reading (its queue full) loses a notification rather
    // than holding up the program (a blocked WATCHDOG=1 and STOPPING=1 held both threads of
    // the pool, and serve never stopped).
    let raw = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | socketCloseOnExec | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard raw >= 0 else { return false }
    let socket = FileDescriptor(rawValue: raw)
    defer { try? socket.close() }
    // An abstract socket's name starts with '@', which stands for a zero byte.
    let target = path.hasPrefix("@") ? "\0" + path.dropFirst() : path
    let result = Array(state.utf8).withUnsafeBytes { FileDescriptor.sendDatagram(socket, $0, toUnixPath: target) }
    if case .success = result { return true }
    return false
  }

  /// How often the service manager wants `WATCHDOG=1`: half its `WATCHDOG_USEC`, when the
  /// watchdog is on for this process, and never more often than every
  /// ``shortestWatchdogInterval`` (a `WATCHDOG_USEC=1` would otherwise spin).
  public static var watchdogInterval: Duration? {
    guard let microseconds = environment("WATCHDOG_USEC").flatMap(Int64.init), microseconds > 0 else { return nil }
    if let pid = environment("WATCHDOG_PID").flatMap(Int32.init), pid != getpid() { return nil }
    return max(.microseconds(microseconds / 2), shortestWatchdogInterval)
  }

  /// The most often the watchdog is pinged: a sane floor for a nonsensical `WATCHDOG_USEC`.
  public static let shortestWatchdogInterval: Duration = .milliseconds(50)

  static func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }
}
