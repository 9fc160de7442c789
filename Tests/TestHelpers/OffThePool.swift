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

/// Runs each test it marks on a thread of its own rather than on the cooperative pool: for a
/// test that computes for seconds (an hour of simulated driving, a capture split at every
/// index, a million doubles). The pool has a thread a core; on a two-core machine two such
/// tests computing on it stop every other test's async work for as long as they run (a
/// minute in a debug build beside a build), and tests waiting 20 s for a server's answer fail
/// with nothing wrong. On a thread of its own, the system shares the cores among them all.
public struct OffThePoolTrait: TestTrait, SuiteTrait, TestScoping {
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await withTaskExecutorPreference(DedicatedExecutor.own("gpsbridge.tests.computing")) { try await function() }
  }
}

extension Trait where Self == OffThePoolTrait {
  /// A test (or each test of a suite) that computes for long, run on a thread of its own.
  public static var offThePool: Self { Self() }
}
