import NMEA
import Plumbing

/// What a source reports to the manager.
public enum SourceEvent: Sendable, Equatable {
  /// Whether the process may read the source, once it has tried.
  case authorization(AuthorizationStatus)
  /// One receiver epoch.
  case fix(Fix)
  /// Several epochs that were ready together (a replay reading ahead), in order: the same
  /// as that many ``fix(_:)`` events, taken by the manager in one step.
  case fixes([Fix])
  /// The source went away (unplugged, gpsd stopped); it keeps trying to come back.
  case paused(LocationManager.Error)
  /// The source is back after a pause.
  case resumed
  /// A problem that does not stop the source (no fix for a long time, garbage at the wrong baud).
  case failed(LocationManager.Error)
  /// The source has no more data and has stopped (a capture's end). Reported as one
  /// `didFailWithError` (code `endOfCapture`), without a pause: nothing went away.
  case ended(LocationManager.Error)
  /// The source cannot go on and has stopped: a cause that cannot go away by itself (not a
  /// serial device, no permission, a host name that does not resolve, an unreadable
  /// capture). Reported as one `didFailWithError`.
  case stopped(LocationManager.Error)
}

/// Where fixes come from: a serial receiver, gpsd, or a capture. The manager starts a
/// source by calling ``run(_:)`` in a task and stops it by cancelling that task.
public protocol FixSource: Sendable {
  /// The authorization before the source is first tried.
  var initialAuthorization: AuthorizationStatus { get }
  /// Whether the source is configured and present, without starting it.
  func isPresent() async -> Bool
  /// Tries the source once and says whether this process may read it.
  func checkAuthorization() async -> AuthorizationStatus
  /// Produces events until cancelled or, for a capture, until it ends. Each `deliver` is
  /// awaited, so a fast source waits for the manager instead of queueing without bound.
  func run(_ deliver: @escaping @Sendable (SourceEvent) async -> Void) async
  /// Whether the manager should wait for slow subscribers rather than let their oldest
  /// actions go (see ``Broadcaster/waitForRoom()``). A replay wants this; a live device,
  /// which will not wait, does not.
  var prefersLosslessDelivery: Bool { get }
}

extension FixSource {
  public var prefersLosslessDelivery: Bool { false }
}
