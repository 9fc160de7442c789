import GPSLocation
import Plumbing

extension LocationManager.Action {
  /// The action as one of gpsbridge's own objects in gpsd's stream, for clients that watch
  /// with `"regions":true`: `{"class":"REGION","device":…}` for region entry, exit and state,
  /// `{"class":"VISIT","device":…}` for visits, followed by the same fields `--json` prints
  /// (the README's output format), and, for an action of a monitor's `event`, the fix's
  /// `"time"` and the event's `"id"`. `nil` for every other action.
  public func gpsdReport(device: String, of event: MonitorEvent? = nil) -> String? {
    let kind: StaticString
    switch self {
    case .didEnterRegion, .didExitRegion, .didDetermineState: kind = "REGION"
    case .didVisit: kind = "VISIT"
    default: return nil
    }
    var writer = JSONWriter(capacity: 256)
    writer.beginObject()
    writer.field("class", kind.description)
    writer.field("device", device)
    // The action's own object, without its opening brace, continues this one.
    let line = event.map { jsonLine(of: $0) } ?? jsonLine
    writer.write(",")
    writer.write(String(line.dropFirst()))
    return writer.string
  }
}
