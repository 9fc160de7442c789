/// A baud rate: fixed, or found automatically.
public enum BaudRate: Hashable, Sendable, CustomStringConvertible {
  case automatic
  case fixed(Int)

  /// The rates autobaud tries, most common first: 9600 (most USB receivers, u-blox,
  /// MediaTek), 4800 (NMEA's own rate, SiRF), then the faster ones.
  public static let candidates = [9600, 4800, 38400, 115200, 57600, 19200, 230400, 460800, 921600]

  public var description: String {
    switch self {
    case .automatic: "auto"
    case .fixed(let rate): "\(rate)"
    }
  }
}
