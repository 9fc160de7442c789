import Foundation

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
