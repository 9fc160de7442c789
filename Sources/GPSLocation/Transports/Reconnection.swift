/// How one connection to a live source ended.
enum SessionEnd {
  /// The task was cancelled: stop for good.
  case cancelled
  /// The device or server went away; the error says which and how.
  case lost(LocationManager.Error)
}

/// The loop both live sources run, so they behave alike:
/// - open the connection; on failure report it (once per distinct message, with
///   `authorization(.denied)` first for a permission problem) and retry after a backoff that
///   doubles from `minimum` to `maximum`, sleeping in between;
/// - once open, report `authorization(.authorizedAlways)` and, after a loss, `resumed`;
/// - read until the session ends; on a loss report `paused` with its error, wait `minimum`,
///   and start over.
func runReconnecting<Connection>(
  minimum: Duration, maximum: Duration, deliver: @escaping @Sendable (SourceEvent) async -> Void,
  open: () throws(LocationManager.Error) -> Connection,
  session: (Connection) async -> SessionEnd,
  close: (Connection) -> Void
) async {
  var backoff = minimum
  var lastProblem: String?
  var paused = false
  while !Task.isCancelled {
    let connection: Connection
    do {
      connection = try open()
    } catch {
      if error.message != lastProblem {
        lastProblem = error.message
        if error.code == .denied { await deliver(.authorization(.denied)) }
        await deliver(.failed(error))
      }
      guard await sleepUnlessCancelled(backoff) else { return }
      backoff = min(backoff * 2, maximum)
      continue
    }
    backoff = minimum
    lastProblem = nil
    await deliver(.authorization(.authorizedAlways))
    if paused {
      paused = false
      await deliver(.resumed)
    }
    let end = await session(connection)
    close(connection)
    guard case .lost(let error) = end else { return }
    paused = true
    await deliver(.paused(error))
    guard await sleepUnlessCancelled(minimum) else { return }
  }
}
