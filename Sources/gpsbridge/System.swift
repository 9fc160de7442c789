// The few system calls the command line makes itself (standard streams, a capture file, a
// pseudo-terminal, signals), straight from the C library: the library products do the rest.
#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A failed system call's `errno`, described as the C library says it ("Permission denied").
struct SystemError: Error, Equatable, CustomStringConvertible {
  var code: Int32

  /// The calling thread's `errno` now.
  static var current: SystemError { SystemError(code: errno) }
  static let brokenPipe = SystemError(code: EPIPE)
  static let interrupted = SystemError(code: EINTR)

  var description: String { String(cString: strerror(code)) }
}

/// An open file descriptor of the command line's own: a capture it reads or writes, a
/// standard stream.
struct OpenFile: Sendable {
  let descriptor: CInt

  static let standardOutput = OpenFile(descriptor: 1)

  /// Opens `path` (close-on-exec) with `flags`, creating it with `mode`.
  static func open(_ path: String, _ flags: CInt, mode: mode_t = 0o644) throws(SystemError) -> OpenFile {
    let descriptor = Glibc.open(path, flags | O_CLOEXEC, mode)
    guard descriptor >= 0 else { throw .current }
    return OpenFile(descriptor: descriptor)
  }

  /// Opens `path` for a new capture: creates it, and never empties a file that is there
  /// already (the program did not make it; a capture recorded earlier may be in it). What is
  /// not a regular file (`/dev/null`, a FIFO) is opened as it is.
  static func create(_ path: String) throws(CreateError) -> OpenFile {
    do throws(SystemError) {
      return try open(path, O_WRONLY | O_CREAT | O_EXCL)
    } catch  where error.code == EEXIST {
      var status = stat()
      if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG { throw .exists }
      do throws(SystemError) { return try open(path, O_WRONLY) } catch { throw .system(error) }
    } catch {
      throw .system(error)
    }
  }

  /// Why ``create(_:)`` failed.
  enum CreateError: Error, CustomStringConvertible {
    case exists
    case system(SystemError)

    var description: String {
      switch self {
      case .exists: "it exists already, and gpsbridge never writes over a file: name a new one, or remove that one first"
      case .system(let error): error.description
      }
    }
  }

  /// The whole of the file at `path`, up to `limit` bytes (a larger one is refused: `EFBIG`).
  static func contents(of path: String, limit: Int = 16 << 20) throws(SystemError) -> [UInt8] {
    let file = try open(path, O_RDONLY)
    defer { file.close() }
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = try file.read(into: &chunk)
      if count == 0 { return contents }
      guard contents.count + count <= limit else { throw SystemError(code: EFBIG) }
      contents += chunk[0..<count]
    }
  }

  /// Reads up to `buffer.count` bytes; 0 at the end.
  func read(into buffer: inout [UInt8]) throws(SystemError) -> Int {
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count >= 0 { return count }
      if errno != EINTR { throw .current }
    }
  }

  /// Writes all of `bytes`, however many writes that takes.
  func writeAll(_ bytes: [UInt8]) throws(SystemError) {
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
      if count < 0 {
        if errno == EINTR { continue }
        throw .current
      }
      written += count
    }
  }

  func close() {
    _ = Glibc.close(descriptor)
  }
}

/// A value shared between threads, behind a `pthread_mutex_t`: the same lock the library's
/// products use (one lock type in the process), which ThreadSanitizer can see.
final class Shared<Value: Sendable>: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

  init(_ value: Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with the value, holding the lock.
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}

/// Sleeps for `duration`; false when the task was cancelled instead.
func sleepOrCancel(_ duration: Duration) async -> Bool {
  (try? await Task.sleep(for: duration)) != nil
}

/// The system's calendar time (`CLOCK_REALTIME`), in nanoseconds since 1970: for a
/// recording's date and a simulated receiver's clock, never for a fix.
var wallClockNanoseconds: Int64 {
  var time = timespec()
  clock_gettime(CLOCK_REALTIME, &time)
  return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}
