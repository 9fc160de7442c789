import Foundation
import Testing

/// Runs `body`, which blocks (a socket read with a deadline, a sleep), on a thread of its own
/// and waits for it without holding one of the cooperative pool's few threads: on a 2-core
/// machine two tests blocking the pool at once stall every other test's async work.
public func offThePool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread {
      continuation.resume(with: Result { try body() })
    }
  }
}

/// Runs the tests it marks on a thread of their own, one test at a time, rather than on the
/// cooperative pool: for tests that compute for seconds (an hour of simulated driving, a
/// capture split at every index, a million doubles). The pool has a thread a core; on a
/// two-core machine two such tests on it stop every other test's async work for as long as
/// they compute (a minute in a debug build beside a build), and tests waiting 20 s for a
/// server's answer fail with nothing wrong. A thread each is no better: started together, a
/// score of them leave the pool's two threads a sliver of the cores. One at a time, on one
/// thread, they take a share of the machine like any one test.
///
/// For synchronous tests only: an async one would interleave with the others at each `await`,
/// its child tasks would share the thread, and a blocking wait of it there would hold up every
/// marked test. Time spent queued behind the others counts toward a `.timeLimit`.
public struct OffThePoolTrait: TestTrait, SuiteTrait, TestScoping {
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await withTaskExecutorPreference(ComputingThread.shared) { try await function() }
  }
}

extension Trait where Self == OffThePoolTrait {
  /// A test (or each test of a suite) that computes for long, run on the one thread such
  /// tests share.
  public static var offThePool: Self { Self() }
}

/// One thread that runs the jobs given to it in turn: the executor of ``OffThePoolTrait``.
final class ComputingThread: TaskExecutor, @unchecked Sendable {
  static let shared = ComputingThread()
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []

  private init() {
    Thread.detachNewThread { [self] in
      while true {
        condition.lock()
        while jobs.isEmpty { condition.wait() }
        let job = jobs.removeFirst()
        condition.unlock()
        job.runSynchronously(on: asUnownedTaskExecutor())
      }
    }
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }
}
