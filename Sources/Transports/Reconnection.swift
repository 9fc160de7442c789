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

/// The loop both live sources run, so they behave alike:
/// - open the connection; on a failure that `isPermanent` says cannot go away by itself,
///   report `stopped` and end; on another, report it (once per distinct message, with
///   `authorization(.denied)` first for a permission problem), then `wait` as the cause
///   deserves (for the device to appear, or a short backoff) and try again;
/// - once open, report `authorization(.authorizedAlways)` and, after a loss, `resumed`;
/// - read until the session ends (it publishes through the receiver); on a loss
///   report `paused` with its error and try again at once, unless this session and the one
///   before each ended within ``quickLoss`` without a fix (a server that accepts and hangs up,
///   a device that fails as soon as it opens): that counts as a failed attempt, so the loop
///   never spins.
func runReconnecting<Connection>(
  for receiver: Receiver,
  open: () async throws(SourceError) -> Connection,
  session: (Connection) async -> SessionEnd,
  close: (Connection) -> Void,
  isPermanent: (SourceError) -> Bool,
  wait: (_ error: SourceError, _ failures: Int) async -> Bool
) async {
  var failures = 0
  var quickLosses = 0
  var lastProblem: String?
  var paused = false
  func say(_ event: SourceEvent) { receiver.publish(.status(event)) }
  while !Task.isCancelled {
    let connection: Connection
    do {
      connection = try await open()
    } catch {
      failures += 1
      if case .permissionDenied = error, error.message != lastProblem { say(.authorization(.denied)) }
      if isPermanent(error) {
        say(.stopped(error))
        return
      }
      if error.message != lastProblem {
        lastProblem = error.message
        say(.failed(error))
      }
      guard await wait(error, failures) else { return }
      continue
    }
    lastProblem = nil
    say(.authorization(.authorizedAlways))
    if paused {
      paused = false
      say(.resumed)
    }
    let opened = ContinuousClock.now
    let end = await session(connection)
    close(connection)
    guard case .lost(let error, let hadFix) = end else { return }
    paused = true
    say(.paused(error))
    if opened.duration(to: .now) < quickLoss, !hadFix {
      quickLosses += 1
      if quickLosses > 1 {
        failures += 1
        guard await wait(error, failures) else { return }
      }
    } else {
      quickLosses = 0
      failures = 0
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
