/// A request to a gpsd, as a client sends it and as `gpsbridge serve` reads it (see
/// ``GPSDRequestReader``): ``line`` is what goes on the socket.
public enum GPSDRequest: Hashable, Sendable {
  /// `?VERSION;`
  case version
  /// `?DEVICES;`
  case devices
  /// `?WATCH;` (`nil`: say the current watch) or `?WATCH={…}`.
  case watch(GPSDWatch.Change?)
  /// `?POLL;`: the latest fix of every device at once.
  case poll
  /// `?DEVICE;` or `?DEVICE={…}` (the object's text: a request to change a receiver).
  case device(String?)

  /// Streaming JSON reports, for every device or one.
  public static func watchReports(device: String? = nil) -> GPSDRequest {
    .watch(GPSDWatch.Change(enable: true, json: true, device: device))
  }

  /// Streaming the devices' NMEA sentences instead of JSON (for recording).
  public static func watchSentences(device: String? = nil) -> GPSDRequest {
    .watch(GPSDWatch.Change(enable: true, json: false, nmea: true, device: device))
  }

  /// Stopping a watch.
  public static let unwatch = GPSDRequest.watch(GPSDWatch.Change(enable: false, json: false))

  /// The request line, newline included.
  public var line: String {
    switch self {
    case .version: "?VERSION;\n"
    case .devices: "?DEVICES;\n"
    case .watch(nil): "?WATCH;\n"
    case .watch(let change?): "?WATCH=\(change.text);\n"
    case .poll: "?POLL;\n"
    case .device(nil): "?DEVICE;\n"
    case .device(let object?): "?DEVICE=\(object);\n"
    }
  }
}
