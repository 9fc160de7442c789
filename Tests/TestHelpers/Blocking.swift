/// Runs `body`, which blocks (reads a socket for seconds, waits for a program), on a thread
/// of its own rather than the cooperative pool, in the calling task: its expectations count for
/// the test as usual. A synchronous test runs on the pool, and on a two-core machine two such
/// tests waiting are the whole pool: every other test's tasks wait with them.
public func blocking<Value>(_ body: () throws -> Value) async throws -> Value {
  try await withTaskExecutorPreference(DedicatedExecutor(label: "gpsbridge.tests.blocking")) { try body() }
}
