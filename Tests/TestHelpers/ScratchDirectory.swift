import Foundation
import Plumbing

/// A folder under the system's temporary directory for this test process, removed when the
/// process exits: a run of the suite leaves nothing behind in /tmp.
public func scratchDirectory(_ name: String) -> URL {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())")
  // Made under the lock: a test asking at the same moment must not get it before it exists.
  scratchDirectories.withLock { made in
    guard made.insert(directory.path).inserted else { return }
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }
  registerRemovalAtExit
  return directory
}

private let scratchDirectories = Locked<Set<String>>([])

/// Registered once: at exit, every scratch directory made goes.
private let registerRemovalAtExit: Void = {
  atexit {
    for path in scratchDirectories.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
  }
}()

/// Waits until `path` exists (a simulator's pty link, a server's socket), for at most 5 s:
/// a bound, not an expectation; what follows says what was missing.
public func waitUntilExists(_ path: String) async throws {
  _ = await eventually(timeout: .seconds(5)) { FileManager.default.fileExists(atPath: path) }
}
