/// Runs `body` on a new thread that nobody joins: for a loop that blocks in a system call with
/// no readiness to watch (a PPS fetch or a modem-line wait: ioctls that return at the next
/// pulse) and must not hold one of the cooperative pool's few threads. Descriptors that become
/// readable are read by Dispatch sources instead.
package func detachThread(_ body: @escaping @Sendable () -> Void) {
  let box = Unmanaged.passRetained(ThreadBody(body))
  var thread = pthread_t()
  let result = pthread_create(
    &thread, nil,
    { context in
      let body = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
      body.run()
      return nil
    }, box.toOpaque())
  if result == 0 { pthread_detach(thread) } else { box.release() }
}

private final class ThreadBody: Sendable {
  let run: @Sendable () -> Void
  init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
