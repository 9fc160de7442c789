/// A capture to replay: a file of the receiver's own bytes (gpsd-style `#` comments
/// allowed), standard input (`"-"`), or bytes in memory.
public enum Capture: Hashable, Sendable, CustomStringConvertible {
  case file(String)
  case bytes([UInt8], name: String = "capture")

  public var description: String {
    switch self {
    case .file("-"): "standard input"
    case .file(let path): path
    case .bytes(_, let name): name
    }
  }
}
