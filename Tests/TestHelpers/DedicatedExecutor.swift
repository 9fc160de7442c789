import Dispatch

/// Runs tasks on a dispatch queue of their own rather than the shared cooperative pool: for
/// work a test starts in the background (a server's feed, a receiver's writer) that must keep
/// going while the test's own thread blocks waiting for a program, as tests that run other
/// programs do. On a two-core machine those blocked threads are the whole pool.
public final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
  private let queue: DispatchQueue

  public init(label: String) {
    queue = DispatchQueue(label: label)
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }

  /// One of its own for a test's background work. Not one shared by all tests: its queue is
  /// serial, and a job that blocks on it (a write to a full pseudo-terminal waits up to a
  /// second) would hold up every other test's feed, which a replay paced at 20× cannot afford.
  public static func own(_ label: String = "gpsbridge.tests.background") -> DedicatedExecutor {
    DedicatedExecutor(label: label)
  }
}
