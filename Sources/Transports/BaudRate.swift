import Plumbing

/// A baud rate: fixed, or found automatically.
public enum BaudRate: Hashable, Sendable, CustomStringConvertible {
  case automatic
  case fixed(Int)

  /// Every rate the serial port can be set to, in the order autobaud tries them: the most
  /// common first (9600 for most USB receivers, u-blox and MediaTek; 4800, NMEA's own rate and
  /// SiRF's; 38400 and 115200 for fast receivers), then the others, slowest first.
  public static let candidates: [Int] = {
    let preferred = [9600, 4800, 38400, 115200]
    return preferred + terminalSpeeds.map(\.0).filter { !preferred.contains($0) }
  }()

  public var description: String {
    switch self {
    case .automatic: "auto"
    case .fixed(let rate): "\(rate)"
    }
  }
}
