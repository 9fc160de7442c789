import Plumbing

/// How one connection to a live source ended.
enum SessionEnd {
  /// The task was cancelled: stop for good.
  case cancelled
  /// The device or server went away; the error says which and how.
  case lost(LocationManager.Error)
}

/// The loop both live sources run, so they behave alike:
/// - open the connection; on a failure that `isPermanent` says cannot go away by itself,
///   report `stopped` and end; on another, report it (once per distinct message, with
///   `authorization(.denied)` first for a permission problem), then `wait` as the cause
///   deserves (for the device to appear, or a short backoff) and try again;
/// - once open, report `authorization(.authorizedAlways)` and, after a loss, `resumed`;
/// - read until the session ends (it delivers through the `deliver` it is given); on a loss
///   report `paused` with its error and try again at once, unless this session and the one
///   before each ended within ``quickLoss`` without a fix (a server that accepts and hangs up,
///   a device that fails as soon as it opens): that counts as a failed attempt, so the loop
///   never spins.
func runReconnecting<Connection>(
  deliver: @escaping @Sendable (SourceEvent) async -> Void,
  open: () throws(LocationManager.Error) -> Connection,
  session: (Connection, _ deliver: @escaping @Sendable (SourceEvent) async -> Void) async -> SessionEnd,
  close: (Connection) -> Void,
  isPermanent: (LocationManager.Error) -> Bool,
  wait: (_ error: LocationManager.Error, _ failures: Int) async -> Bool
) async {
  var failures = 0
  var quickLosses = 0
  var lastProblem: String?
  var paused = false
  while !Task.isCancelled {
    let connection: Connection
    do {
      connection = try open()
    } catch {
      failures += 1
      if error.code == .denied, error.message != lastProblem { await deliver(.authorization(.denied)) }
      if isPermanent(error) {
        await deliver(.stopped(error))
        return
      }
      if error.message != lastProblem {
        lastProblem = error.message
        await deliver(.failed(error))
      }
      guard await wait(error, failures) else { return }
      continue
    }
    lastProblem = nil
    await deliver(.authorization(.authorizedAlways))
    if paused {
      paused = false
      await deliver(.resumed)
    }
    let opened = ContinuousClock.now
    let progress = Progress()
    let end = await session(connection) { event in
      if case .fix = event { progress.made() } else if case .fixes = event { progress.made() }
      await deliver(event)
    }
    close(connection)
    guard case .lost(let error) = end else { return }
    paused = true
    await deliver(.paused(error))
    if opened.duration(to: .now) < quickLoss, !progress.wasMade {
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

/// Whether a session delivered a fix.
private final class Progress: @unchecked Sendable {
  private let lock = Locked(false)
  func made() { lock.withLock { $0 = true } }
  var wasMade: Bool { lock.withLock { $0 } }
}
