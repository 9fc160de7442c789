import GPSD

/// Where a receiver's bytes come from, said as a value: what a station serves, and what
/// ``receiver`` makes into a ``Receiver``.
public enum ReceiverSource: Hashable, Sendable {
  /// A receiver on a serial device (a by-id link keeps working across replugs).
  case serial(path: String, baudRate: BaudRate = .automatic)
  /// A capture, replayed at `speed`, its sentences and bytes in step with its fixes; with
  /// `loops`, from its beginning again each time it ends (as gpsfake plays a log).
  case replay(Capture, speed: ReplaySpeed = .realTime, loops: Bool = false)
  /// A gpsd: its reports, made into fixes (no sentences or bytes).
  case gpsd(host: String, port: Int)

  /// A new receiver for this source; its session starts with its first runner.
  public var receiver: Receiver {
    switch self {
    case .serial(let path, let baudRate): Receiver(SerialSource(path: path, baudRate: baudRate))
    case .replay(let capture, let speed, let loops):
      Receiver(ReplaySource(capture: capture, speed: speed, loops: loops, clock: ContinuousClock()))
    case .gpsd(let host, let port): Receiver(GPSDSource(host: host, port: port))
    }
  }

  /// The device's name as gpsd's clients see it in DEVICE and TPV.
  public var device: String {
    switch self {
    case .serial(let path, _): path
    case .replay(let capture, _, _): capture.description
    case .gpsd(let host, let port): "gpsd://\(GPSDAddress(host: host, port: port))"
    }
  }

  /// The serial speed when it was given (autobaud's is not known in advance).
  public var bitsPerSecond: Int? {
    if case .serial(_, .fixed(let rate)) = self { rate } else { nil }
  }
}
