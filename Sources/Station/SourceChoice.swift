import GPSD
import Transports

/// Where locations come from, as a user chooses it: a source named, or ``automatic``.
public enum SourceChoice: Hashable, Sendable {
  /// The receiver plugged in, else gpsd: see ``resolved(gpsd:discovery:fallsBackToDemo:)``.
  case automatic
  /// The simulated demo drive, in real time: no receiver, and said to be none.
  case demo
  /// A serial receiver.
  case device(path: String, baud: BaudRate)
  /// A running gpsd.
  case gpsd(GPSDAddress)
  /// A capture file (`-`: standard input), replayed at `speed`.
  case replay(path: String, speed: ReplaySpeed)

  /// The baud rate a device was given with (every device of a station shares it).
  public var baudRate: BaudRate {
    if case .device(_, let baud) = self { baud } else { .automatic }
  }

  /// The source chosen: the one named, or for ``automatic`` the one policy every command
  /// follows, so that `gpsbridge run` and `gpsbridge serve` never disagree on what a box has:
  /// 1. the receiver plugged in (``DeviceDiscovery/preferredReceiver()``: a known GPS
  ///    receiver first), at the baud rate autobaud finds;
  /// 2. else gpsd at `gpsd`, if it answers there (`nil`: gpsd is not a choice, as for a
  ///    server about to take gpsd's own port);
  /// 3. else the simulated demo drive, in real time, but only when `fallsBackToDemo`: a
  ///    location nobody measured must never pass for a receiver's, so a service or a program
  ///    whose output another program reads gets `nil` here and waits for a receiver
  ///    (``waitForReceiver(discovery:)``).
  public func resolved(
    gpsd: GPSDAddress? = .standard, discovery: DeviceDiscovery = DeviceDiscovery(), fallsBackToDemo: Bool = false
  ) async -> ChosenSource? {
    switch self {
    case .device(let path, let baud):
      return ChosenSource(source: .serial(path: path, baudRate: baud), name: path, reason: .named)
    case .gpsd(let address):
      return ChosenSource(source: .gpsd(host: address.host, port: address.port), name: "gpsd \(address)", reason: .named)
    case .replay(let path, let speed):
      return ChosenSource(
        source: .replay(.file(path), speed: speed), name: path == "-" ? "a replay of standard input" : "a replay of \(path)",
        reason: .named)
    case .demo:
      return .demo
    case .automatic:
      if let device = discovery.preferredReceiver()?.path {
        return ChosenSource(source: .serial(path: device, baudRate: .automatic), name: device, reason: .foundReceiver)
      }
      if let gpsd, await GPSDSource(host: gpsd.host, port: gpsd.port).isPresent() {
        return ChosenSource(source: .gpsd(host: gpsd.host, port: gpsd.port), name: "gpsd \(gpsd)", reason: .foundGPSD)
      }
      return fallsBackToDemo ? .demo : nil
    }
  }
}

/// A source resolved from a ``SourceChoice``: what it is, a name for people, and why.
public struct ChosenSource: Hashable, Sendable {
  /// Why this source: named by the user, or found by ``SourceChoice/automatic``'s policy.
  public enum Reason: Hashable, Sendable {
    case named
    case foundReceiver
    case foundGPSD
    case demo
  }

  public var source: ReceiverSource
  /// A name for people: the device's path, "gpsd localhost:2947", "a replay of drive.nmea".
  public var name: String
  public var reason: Reason

  public init(source: ReceiverSource, name: String, reason: Reason) {
    self.source = source
    self.name = name
    self.reason = reason
  }

  /// Whether this is the simulated demo drive.
  public var isDemo: Bool { reason == .demo }

  /// The simulated demo drive, in real time.
  public static let demo = ChosenSource(
    source: .replay(.simulated(.demoDrive), speed: .realTime), name: "the demo drive (simulated)", reason: .demo)
}
