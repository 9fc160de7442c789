import Plumbing

/// chrony's SOCK reference clock: each sample one 40-byte datagram to the Unix socket that
/// chronyd made at `path` (`refclock SOCK path` in chrony.conf).
///
/// Nothing here waits for chrony: the socket is not connected, each sample is sent to the
/// path as it is then, so chrony may start after gpsbridge, or restart, and samples resume by
/// themselves; while nobody listens a sample is dropped and counted, and a full queue drops
/// rather than blocks.
package final class ChronySocket: @unchecked Sendable {
  package let path: String
  private let descriptor: FileDescriptor
  private let state = Locked(State())

  package struct State: Sendable {
    /// Samples chrony received.
    package var sent = 0
    /// Samples dropped because no chronyd was listening, or it could take no more.
    package var dropped = 0
    /// Why the last sample was dropped, while samples are being dropped.
    package var lastError: Errno?
  }

  /// The magic number that ends each datagram, "SOCK" in ASCII.
  package static let magic: Int32 = 0x534f_434b

  /// The longest path a Unix socket's address holds, in bytes.
  package static let longestPath = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

  /// Told each time the socket's health changes (see ``Health``), and once at start.
  private let said: @Sendable (Health) -> Void
  private let health: Locked<Health>

  /// Whether chrony takes our samples, in words a user can act on.
  package enum Health: Hashable, Sendable, CustomStringConvertible {
    /// Samples go through.
    case taking
    /// Nothing is at the path: chrony is not running, or chrony.conf has no line for it.
    case noSocket
    /// Something is at the path that is not a socket.
    case notASocket
    /// A socket is there and nobody reads it: chronyd stopped without removing it.
    case refused
    /// Another cause, as the system named it.
    case failing(Errno)

    /// The state a send's result puts the socket in.
    init(_ result: Result<Void, Errno>, path: String) {
      guard case .failure(let error) = result else {
        self = .taking
        return
      }
      // Linux refuses a datagram to a path that is no socket as it refuses one nobody reads:
      // what is at the path tells them apart.
      var status = stat()
      if error != .noSuchFile, stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFSOCK {
        self = .notASocket
        return
      }
      switch error {
      case .noSuchFile: self = .noSocket
      case .connectionRefused: self = .refused
      default: self = .failing(error)
      }
    }

    /// The state the path is in before anything was sent: whether a socket is there.
    init(checking path: String) {
      var status = stat()
      if stat(path, &status) != 0 {
        self = Errno.current == .noSuchFile ? .noSocket : .failing(Errno.current)
      } else {
        self = status.st_mode & S_IFMT == S_IFSOCK ? .taking : .notASocket
      }
    }

    package var description: String {
      switch self {
      case .taking: "chrony takes the samples"
      case .noSocket: "no such socket: chrony is not running, or its chrony.conf has no 'refclock SOCK' line for it"
      case .notASocket: "that is not a socket (chrony makes it: name the path of chrony.conf's 'refclock SOCK' line)"
      case .refused: "refused: the socket is there and nobody reads it (chronyd stopped?)"
      case .failing(let error): "\(error)"
      }
    }
  }

  /// A socket to send to chrony at `path`: fails only when no socket can be made at all.
  /// `said` hears the path's health at once, and again each time it changes.
  package init(path: String, said: @escaping @Sendable (Health) -> Void = { _ in }) throws(Errno) {
    self.path = path
    self.said = said
    let raw = try valueOrErrno { socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | socketCloseOnExec | Int32(SOCK_NONBLOCK.rawValue), 0) }
    descriptor = FileDescriptor(rawValue: raw)
    let health = Health(checking: path)
    self.health = Locked(health)
    said(health)
  }

  deinit { try? descriptor.close() }

  /// What was sent and dropped so far.
  package var counts: State { state.withLock { $0 } }

  /// Sends `sample`; a chronyd that is not there (yet) only counts a drop.
  package func send(_ sample: TimeSample) {
    let datagram = Self.datagram(for: sample)
    let result = datagram.withUnsafeBytes { bytes in
      FileDescriptor.sendDatagram(descriptor, bytes, toUnixPath: path)
    }
    // A full queue is chrony busy for a moment, not a change of health (it is counted).
    if case .failure(.wouldBlock) = result {
    } else {
      let now = Health(result, path: path)
      if health.withLock({ health in
        defer { health = now }
        return health != now
      }) {
        said(now)
      }
    }
    state.withLock { state in
      switch result {
      case .success:
        state.sent += 1
        state.lastError = nil
      case .failure(let error):
        state.dropped += 1
        state.lastError = error
      }
    }
  }

  /// chrony's `struct sock_sample`, in this machine's byte order: the system time as a
  /// `timeval`, the offset (reference − system, seconds), whether it is a pulse, the leap
  /// second status (0: none announced; NMEA announces none), padding and the magic number.
  package static func datagram(for sample: TimeSample) -> [UInt8] {
    // The offset is taken from the microsecond the timeval says, so chrony's reference time
    // (timeval + offset) is the sample's to the nanosecond.
    let system = sample.system.nanosecondsSince1970 / 1000 * 1000
    let offset = Double(sample.reference.nanosecondsSince1970 - system) / 1e9
    var bytes: [UInt8] = []
    bytes.reserveCapacity(40)
    func append<Value: FixedWidthInteger>(_ value: Value) { withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) } }
    append(Int64(system / 1_000_000_000))
    append(Int64(system % 1_000_000_000 / 1000))
    append(offset.bitPattern)
    append(Int32(sample.kind == .pulse ? 1 : 0))
    append(Int32(0))
    append(Int32(0))
    append(magic)
    return bytes
  }
}
