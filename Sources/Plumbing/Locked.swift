/// State guarded by a `pthread_mutex_t`.
///
/// The standard library's `Synchronization.Mutex` would do, but ThreadSanitizer cannot see
/// its acquire and release (they happen inside the uninstrumented standard library), so it
/// reports races between accesses that the lock does order. A pthread mutex is intercepted
/// by the sanitizer, which keeps `swift test --sanitize=thread` meaningful.
package final class Locked<State>: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var state: State

  package init(_ state: State) {
    self.state = state
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with the state, holding the lock.
  package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&state)
  }
}
