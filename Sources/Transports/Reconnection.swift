import Plumbing
import SourceStatus

/// How one connection to a live source ended.
enum SessionEnd {
  /// The task was cancelled: stop for good.
  case cancelled
  /// The device or server went away; the error says which and how, and whether a fix came
  /// through before.
  case lost(SourceError, hadFix: Bool)
}

/// What a live source says and does between its connections: a pure state machine, given
/// each attempt's outcome and how long a session lasted, never a clock. Both live sources
/// run it (through ``runReconnecting``), so they behave alike:
/// - on a failure to open that cannot go away by itself, say `stopped` and end; on another,
///   say it (once per distinct message, with `authorization(.denied)` first for a permission
///   problem), then wait as the cause deserves and try again;
/// - once open, say `authorization(.authorizedAlways)` and, after a loss, `resumed`;
/// - on a loss, say `paused` with its error and try again at once, unless this session and
///   the one before each ended within ``quickLoss`` without a fix (a server that accepts and
///   hangs up, a device that fails as soon as it opens): that counts as a failed attempt, so
///   the loop never spins.
struct Reconnection: Sendable {
  /// What to do next.
  enum Next: Hashable, Sendable {
    case stop
    /// Wait as the cause deserves: a backoff after `failures` failures, or the device's arrival.
    case wait(failures: Int)
    case retryNow
  }

  private var failures = 0
  private var quickLosses = 0
  private var lastProblem: String?
  private var paused = false

  /// An attempt to open failed with `error` (`permanent`: it cannot go away by itself).
  mutating func openFailed(_ error: SourceError, permanent: Bool) -> (say: [SourceEvent], next: Next) {
    failures += 1
    var events: [SourceEvent] = []
    if case .permissionDenied = error, error.message != lastProblem { events.append(.authorization(.denied)) }
    if permanent { return (events + [.stopped(error)], .stop) }
    if error.message != lastProblem {
      lastProblem = error.message
      events.append(.failed(error))
    }
    return (events, .wait(failures: failures))
  }

  /// The connection opened.
  mutating func opened() -> [SourceEvent] {
    lastProblem = nil
    var events: [SourceEvent] = [.authorization(.authorizedAlways)]
    if paused {
      paused = false
      events.append(.resumed)
    }
    return events
  }

  /// The session ended with `error` after `lasted`, a fix through it or not.
  mutating func lost(_ error: SourceError, hadFix: Bool, lasted: Duration) -> (say: [SourceEvent], next: Next) {
    paused = true
    guard lasted < quickLoss, !hadFix else {
      quickLosses = 0
      failures = 0
      return ([.paused(error)], .retryNow)
    }
    quickLosses += 1
    guard quickLosses > 1 else { return ([.paused(error)], .retryNow) }
    failures += 1
    return ([.paused(error)], .wait(failures: failures))
  }
}

/// Runs a live source's connections one after another as ``Reconnection`` decides, until the
/// task is cancelled, a cause cannot go away, or `wait` says to stop. `now` times each session.
func runReconnecting<Connection>(
  for receiver: Receiver,
  now: () -> ContinuousClock.Instant,
  open: () async throws(SourceError) -> Connection,
  session: (Connection) async -> SessionEnd,
  close: (Connection) -> Void,
  isPermanent: (SourceError) -> Bool,
  wait: (_ error: SourceError, _ failures: Int) async -> Bool
) async {
  var reconnection = Reconnection()
  func say(_ events: [SourceEvent]) { for event in events { receiver.publish(.status(event)) } }
  while !Task.isCancelled {
    let connection: Connection
    do {
      connection = try await open()
    } catch {
      let (events, next) = reconnection.openFailed(error, permanent: isPermanent(error))
      say(events)
      guard case .wait(let failures) = next, await wait(error, failures) else { return }
      continue
    }
    say(reconnection.opened())
    let opened = now()
    let end = await session(connection)
    close(connection)
    guard case .lost(let error, let hadFix) = end else { return }
    let (events, next) = reconnection.lost(error, hadFix: hadFix, lasted: opened.duration(to: now()))
    say(events)
    switch next {
    case .stop: return
    case .retryNow: continue
    case .wait(let failures): guard await wait(error, failures) else { return }
    }
  }
}

/// A session shorter than this ends like a failed attempt (see ``runReconnecting``).
let quickLoss: Duration = .seconds(1)

/// `minimum` doubled for each failure after the first, at most `maximum`.
func backoff(after failures: Int, minimum: Duration, maximum: Duration) -> Duration {
  var delay = minimum
  for _ in 1..<max(1, failures) where delay < maximum { delay = delay * 2 }
  return min(delay, maximum)
}
