import Plumbing

/// systemd's ways of starting a daemon, spoken without libsystemd: the listening sockets a
/// socket unit hands over (`LISTEN_FDS`, `LISTEN_PID`), and the notifications a `Type=notify`
/// service sends (`NOTIFY_SOCKET`: `READY=1`, `STOPPING=1`, `WATCHDOG=1`).
public enum SocketActivation {
  /// The sockets handed over to this process, or `nil` when none were: `LISTEN_FDS`
  /// descriptors from 3 on, when `LISTEN_PID` names this process. The variables are removed,
  /// so programs this one starts do not take the sockets for theirs.
  public static func takeListeningSockets() -> [Int32]? {
    guard let pid = environment("LISTEN_PID").flatMap(Int32.init), pid == getpid(),
      let count = environment("LISTEN_FDS").flatMap(Int32.init), count > 0, count < 1024
    else { return nil }
    for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
    return (0..<count).map { descriptor in
      let fd = 3 + descriptor
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      return fd
    }
  }

  /// Tells the service manager `state` (`READY=1`, `STOPPING=1`, `WATCHDOG=1`, `STATUS=…`);
  /// does nothing when no manager listens (`NOTIFY_SOCKET` unset). `false` when sending failed.
  @discardableResult
  public static func notify(_ state: String) -> Bool {
    guard let path = environment("NOTIFY_SOCKET"), !path.isEmpty else { return true }
    let raw = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | socketCloseOnExec, 0)
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
  /// watchdog is on for this process.
  public static var watchdogInterval: Duration? {
    guard let microseconds = environment("WATCHDOG_USEC").flatMap(Int64.init), microseconds > 0 else { return nil }
    if let pid = environment("WATCHDOG_PID").flatMap(Int32.init), pid != getpid() { return nil }
    return .microseconds(microseconds / 2)
  }

  static func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }
}
