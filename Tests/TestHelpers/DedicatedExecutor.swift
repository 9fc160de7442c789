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

  /// One shared by the tests' background work.
  public static let shared = DedicatedExecutor(label: "gpsbridge.tests.background")
}
