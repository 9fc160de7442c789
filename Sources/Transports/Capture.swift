import NMEASimulation

/// A capture to replay: a file of the receiver's own bytes (gpsd-style `#` comments
/// allowed), standard input (`"-"`), or bytes in memory.
public enum Capture: Hashable, Sendable, CustomStringConvertible {
  case file(String)
  case bytes([UInt8], name: String = "capture")
  /// What a simulated receiver sends, generated as it is replayed.
  case simulated(Simulation)

  public var description: String {
    switch self {
    case .file("-"): "standard input"
    case .file(let path): path
    case .bytes(_, let name): name
    case .simulated(let simulation): "simulated \(simulation.profile.name) receiver"
    }
  }
}
