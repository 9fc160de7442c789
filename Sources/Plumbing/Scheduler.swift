import Dispatch

/// The time a live source reads and the timers it waits on: reconnection's backoff, a
/// session's length, autobaud's probe window, silence and gpsd's session watch.
///
/// The program runs on ``live`` (the monotonic clock, Dispatch timer sources on the reader's
/// queue); tests give a scheduler made from a clock that moves only when they say
/// (``init(clock:)`` with a test clock), so a recovery test advances an hour in no time and a
/// "nothing woke meanwhile" check cannot pass by luck on a busy machine.
///
/// The state machines that decide (``SerialSource``'s reconnection, the line and session
/// watches) never read a clock: they are told `now()` by whoever runs them, from here.
package struct Scheduler: Sendable {
  /// Now, as an instant of the monotonic clock (or of the test clock, placed on it).
  package let now: @Sendable () -> ContinuousClock.Instant
  /// Waits for the duration; `false` when the task was cancelled meanwhile (time to stop).
  package let sleep: @Sendable (Duration) async -> Bool
  /// Runs the work on the queue every interval, the first after one interval, until the
  /// returned cancel is called; work already queued may still run once after it.
  package let repeating: @Sendable (_ interval: Duration, _ queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) -> Cancel

  /// A repeating timer, to stop.
  package struct Cancel: Sendable {
    private let stop: @Sendable () -> Void
    package init(_ stop: @escaping @Sendable () -> Void) { self.stop = stop }
    package func cancel() { stop() }
  }

  package init(
    now: @escaping @Sendable () -> ContinuousClock.Instant, sleep: @escaping @Sendable (Duration) async -> Bool,
    repeating: @escaping @Sendable (Duration, DispatchQueue, @escaping @Sendable () -> Void) -> Cancel
  ) {
    self.now = now
    self.sleep = sleep
    self.repeating = repeating
  }

  /// The monotonic clock, `Task.sleep`, and a Dispatch timer source per repeating timer: a
  /// tick runs on the reader's own queue, between two reads, without a task hop.
  package static let live = Scheduler(
    now: { .now },
    sleep: { duration in await sleepUnlessCancelled(duration) },
    repeating: { interval, queue, work in
      let milliseconds = Int(interval / .milliseconds(1))
      // Dispatch's sources may be cancelled from any thread.
      nonisolated(unsafe) let timer = DispatchSource.makeTimerSource(queue: queue)
      timer.schedule(deadline: .now() + .milliseconds(milliseconds), repeating: .milliseconds(milliseconds), leeway: .milliseconds(10))
      timer.setEventHandler(handler: work)
      timer.activate()
      return Cancel { timer.cancel() }
    })

  /// A scheduler on `clock`: sleeps and timers wake when the clock passes their deadlines, and
  /// a timer that fell behind (a test clock advanced by an hour) ticks once for each interval
  /// it passed, in order, each after the one before has run. Each of those ticks reads the
  /// clock's `now` as it is (after the advance), not its own deadline; a live Dispatch timer
  /// that fell behind ticks once instead. The watches compare `now` with what they last saw,
  /// so either way they decide the same.
  package init<C: Clock>(clock: C) where C.Duration == Duration {
    let origin = ContinuousClock.now
    let start = clock.now
    self.init(
      now: { origin + start.duration(to: clock.now) },
      sleep: { duration in
        do {
          try await clock.sleep(for: duration)
          return true
        } catch {
          return false
        }
      },
      repeating: { interval, queue, work in
        // The first deadline is set now, not when the task first runs: a clock advanced
        // meanwhile still brings the first tick.
        let first = clock.now.advanced(by: interval)
        let ticking = Task {
          var deadline = first
          while true {
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
            // One tick at a time: the next waits until this one has run on the queue.
            await withCheckedContinuation { (ran: CheckedContinuation<Void, Never>) in
              queue.async {
                work()
                ran.resume()
              }
            }
            deadline = deadline.advanced(by: interval)
          }
        }
        return Cancel { ticking.cancel() }
      })
  }
}
