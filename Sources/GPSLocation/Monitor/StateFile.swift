import Dispatch
import Plumbing

/// Where a monitor's state file is written: on a queue of its own, since a write ends with
/// `fsync`, which may wait on the disk for a long while, and no task of the pool should.
/// Writes happen in the order asked, each replacing the whole file atomically.
final class StateFile: Sendable {
  let path: String
  private let queue = DispatchQueue(label: "gpsbridge.monitor-state")
  /// `PATH.lock`, locked (`flock`) while this monitor has the file: a second monitor of the
  /// same file, in this process or another, is refused rather than writing over this one's.
  private let lock: Locked<FileDescriptor?>

  /// The state file at `path`, locked for this monitor.
  /// - Throws: ``Errno/lockHeld`` when another monitor has it; what opening the lock file
  ///   met, else.
  init(locking path: String) throws(Errno) {
    self.path = path
    let lock = try FileDescriptor.open("\(path).lock", O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o600)
    do throws(Errno) {
      try lock.lockExclusively()
    } catch {
      try? lock.close()
      throw error
    }
    self.lock = Locked(lock)
  }

  /// Lets the file go: another monitor may have it from now on.
  func release() {
    guard let lock = lock.withLock({ $0.take() }) else { return }
    try? lock.unlock()
    try? lock.close()
  }

  deinit { release() }

  /// Runs on the caller's actor until it waits (`isolation`), so writes are queued in the order
  /// the caller asked for them.
  func write(_ bytes: [UInt8], isolation: isolated (any Actor)? = #isolation) async throws(Errno) {
    let result: Result<Void, Errno> = await withCheckedContinuation { continuation in
      queue.async { [path] in
        do throws(Errno) {
          try FileContents.replace(path, with: bytes, mode: 0o600)
          continuation.resume(returning: .success(()))
        } catch {
          continuation.resume(returning: .failure(error))
        }
      }
    }
    try result.get()
  }

  /// Whether a file can be made beside the state (as every write makes its new one): made and
  /// removed at once.
  func checkWritable() throws(Errno) {
    let probe = FileContents.newFile(for: path)
    let file = try FileDescriptor.open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
    try? file.close()
    unlink(probe)
  }

  /// Removes the new files of writes a kill cut short (`PATH.new-PID`: only this program makes
  /// them; the file they were to replace is whole).
  static func removeUnfinished(_ path: String) {
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[..<$0]) } ?? "."
    let prefix = FileContents.newFilePrefix(for: slash.map { String(path[path.index(after: $0)...]) } ?? path)
    for name in FileContents.names(in: directory) where name.hasPrefix(prefix) && name.dropFirst(prefix.count).allSatisfy(\.isNumber) {
      unlink("\(directory)/\(name)")
    }
  }

  /// Moves an unreadable file aside (never over another): `PATH.unreadable`, else
  /// `PATH.unreadable-2`, and so on. Returns the new path.
  static func moveAside(_ path: String) throws(Errno) -> String {
    for number in 1...1000 {
      let aside = number == 1 ? "\(path).unreadable" : "\(path).unreadable-\(number)"
      // link(2) fails rather than replace an existing file, where rename(2) would not.
      if link(path, aside) == 0 {
        unlink(path)
        return aside
      }
      guard errno == EEXIST else { throw Errno(rawValue: errno) }
    }
    throw Errno(rawValue: EEXIST)
  }
}
