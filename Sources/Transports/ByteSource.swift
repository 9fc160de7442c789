import NMEA
import SourceStatus

/// What a source says about itself, as opposed to what it reads.
public enum SourceEvent: Sendable, Equatable {
  /// Whether the process may read the source, once it has tried.
  case authorization(AuthorizationStatus)
  /// The source went away (unplugged, gpsd stopped); it keeps trying to come back.
  case paused(SourceError)
  /// The source is back after a pause.
  case resumed
  /// A problem that does not stop the source (no fix for a long time, garbage at the wrong baud).
  case failed(SourceError)
  /// The source has no more data and has stopped (a capture's end). Reported as one
  /// `didFailWithError` (code `endOfCapture`), without a pause: nothing went away.
  case ended(SourceError)
  /// The source cannot go on and has stopped: a cause that cannot go away by itself (not a
  /// serial device, no permission, a host name that does not resolve, an unreadable
  /// capture). Reported as one `didFailWithError`.
  case stopped(SourceError)
}

/// Where a receiver's bytes (or gpsd's reports) come from: a serial device, gpsd, a capture.
/// A source reads and says what happened; everything made from what it reads is published
/// through the ``Receiver`` it runs for, once, to every listener.
public protocol ByteSource: Sendable {
  /// The authorization before the source is first tried.
  var initialAuthorization: AuthorizationStatus { get }
  /// Whether the source is configured and present, without starting it.
  func isPresent() async -> Bool
  /// Tries the source once and says whether this process may read it.
  func checkAuthorization() async -> AuthorizationStatus
  /// Reads until cancelled or, for a capture, until it ends, publishing through `receiver`.
  func run(for receiver: Receiver) async
  /// Whether listeners should be waited for rather than let their oldest events go (see
  /// `Receiver/waitForListeners()`). A replay wants this; a live device, which will not
  /// wait, does not.
  var prefersLosslessDelivery: Bool { get }
  /// Whether what it gives was not measured now by a receiver (a capture replayed, the
  /// simulator): a server marks its fixes so (gpsd's TPV status 8, "simulated"), since a
  /// client that takes a made-up fix for a real one would steer by it.
  var isSimulated: Bool { get }
}

extension ByteSource {
  public var prefersLosslessDelivery: Bool { false }
  public var isSimulated: Bool { false }
}
