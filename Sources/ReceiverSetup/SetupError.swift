/// Why a receiver's settings were not changed, in words that say what to do. Whatever the
/// cause, a change already applied was rolled back first (``rolledBack``).
public enum SetupError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The receiver did not answer `request` (after retries).
  case noAnswer(request: String)
  /// The receiver refused `request` (UBX `ACK-NAK`).
  case refused(request: String)
  /// Not a receiver gpsbridge can set up (yet), and why.
  case unsupported(String)
  /// The change asks for more than this receiver or its link can give, and why.
  case cannotTake(String)
  /// The change was acknowledged but the receiver does not do it.
  case notInEffect(String)
  /// The receiver went away.
  case deviceLost(String)
  /// Stopped by Ctrl-C or SIGTERM.
  case interrupted
  /// `cause` happened after the change was applied: the receiver's settings were restored
  /// (`restored`), or could not be, and what to do then.
  indirect case rolledBack(cause: SetupError, restored: Bool)

  public var description: String {
    switch self {
    case .noAnswer(let request):
      "The receiver did not answer \(request). Check that nothing else writes to this port (gpsd, another gpsbridge), and that the receiver on it is the one gpsbridge identified."
    case .refused(let request): "The receiver refused \(request)."
    case .unsupported(let reason): reason
    case .cannotTake(let reason): reason
    case .notInEffect(let reason): "The receiver acknowledged the change but does not do it: \(reason)."
    case .deviceLost(let reason): "The receiver went away: \(reason)."
    case .interrupted: "Interrupted."
    case .rolledBack(let cause, let restored):
      restored
        ? "\(cause) Its settings were restored as they were."
        : "\(cause) Its earlier settings could not be restored: they hold until it is powered off (nothing was saved), or run 'gpsbridge configure' again."
    }
  }
}
