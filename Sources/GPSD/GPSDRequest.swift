/// A command to gpsd. Each renders to the line gpsd expects on its socket.
public enum GPSDRequest: Hashable, Sendable {
  /// `?WATCH=`: start (or stop) streaming JSON reports, for every device or one.
  case watch(enable: Bool = true, device: String? = nil)
  /// `?WATCH=` asking for the devices' NMEA sentences instead of JSON (for recording).
  case watchNMEA(device: String? = nil)
  /// `?POLL;`: the latest fix of every device at once.
  case poll
  /// `?VERSION;`
  case version
  /// `?DEVICES;`
  case devices

  /// The request line, newline included.
  public var line: String {
    switch self {
    case .watch(let enable, let device):
      return "?WATCH={\"enable\":\(enable),\"json\":\(enable)\(deviceField(device))};\n"
    case .watchNMEA(let device):
      return "?WATCH={\"enable\":true,\"json\":false,\"nmea\":true\(deviceField(device))};\n"
    case .poll: return "?POLL;\n"
    case .version: return "?VERSION;\n"
    case .devices: return "?DEVICES;\n"
    }
  }

  private func deviceField(_ device: String?) -> String {
    guard let device else { return "" }
    var escaped = ""
    for character in device {
      switch character {
      case "\"": escaped += "\\\""
      case "\\": escaped += "\\\\"
      default: escaped.append(character)
      }
    }
    return ",\"device\":\"\(escaped)\""
  }
}
