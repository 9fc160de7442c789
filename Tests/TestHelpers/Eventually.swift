import Foundation

/// Waits until `condition` holds, checking every few milliseconds: the one place a test polls
/// for a state it cannot be told of (a file that appears, another process's lock, bytes read
/// by the code under test). `false` after `timeout`, which only a broken build reaches: it
/// is a bound, never a number of seconds the test relies on.
public func eventually(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while !condition() {
    guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return true
}

/// ``eventually(timeout:_:)`` for a state that takes asking (a server's answer, chronyd's
/// sources), asked every `interval`.
public func eventually(
  timeout: Duration = .seconds(30), every interval: Duration, _ condition: () async throws -> Bool
) async rethrows -> Bool {
  let deadline = ContinuousClock.now + timeout
  while try await !condition() {
    guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
    try? await Task.sleep(for: interval)
  }
  return true
}

/// ``eventually(timeout:_:)`` for a thread of the caller's own (a writer that must not depend
/// on the test runner's busy pool).
/// Asking costs something (a connection to a server), `every` paces it.
public func eventuallyBlocking(timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(5), _ condition: () -> Bool)
  -> Bool
{
  let deadline = ContinuousClock.now + timeout
  while !condition() {
    guard ContinuousClock.now < deadline else { return false }
    usleep(useconds_t(interval / .microseconds(1)))
  }
  return true
}
