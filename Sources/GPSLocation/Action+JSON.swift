import FoundationEssentials
import NMEA
import Plumbing
import Transports

/// The NDJSON form of actions: the contract of `gpsbridge --json`, documented in the README,
/// and what a program sends on (a webhook, MQTT). One object per action with `"event"` (the
/// case name) and the case's payload under the Swift property names; unknown values
/// (CoreLocation's negatives, `nil`) are left out; dates are ISO 8601 in UTC with
/// milliseconds.
///
/// ```swift
/// for await action in manager.delegate() { print(action.jsonLine) }
/// ```
extension LocationManager.Action {
  /// The action's case name, as used in `"event"`: `didUpdateLocations`, `didEnterRegion`…
  public var eventName: String {
    switch self {
    case .didChangeAuthorization: "didChangeAuthorization"
    case .didDetermineState: "didDetermineState"
    case .didEnterRegion: "didEnterRegion"
    case .didExitRegion: "didExitRegion"
    case .didFailWithError: "didFailWithError"
    case .didPauseLocationUpdates: "didPauseLocationUpdates"
    case .didResumeLocationUpdates: "didResumeLocationUpdates"
    case .didStartMonitoring: "didStartMonitoring"
    case .didUpdateHeading: "didUpdateHeading"
    case .didUpdateLocations: "didUpdateLocations"
    case .didVisit: "didVisit"
    case .monitoringDidFail: "monitoringDidFail"
    case .didChangeSignalIntegrity: "didChangeSignalIntegrity"
    }
  }

  /// The action as one line of JSON, without the newline.
  public var jsonLine: String {
    var writer = JSONWriter()
    write(into: &writer)
    return writer.string
  }

  /// The action as one line of JSON (without the newline), one of a monitor's `event` (see
  /// ``MonitorEvent/actions(for:)``), with what the event adds: `"time"` (the fix's), `"id"`,
  /// and `"detectedAtStart": true` for a crossing found at a restart.
  public func jsonLine(of event: MonitorEvent) -> String {
    var writer = JSONWriter()
    write(into: &writer, of: event)
    return writer.string
  }

  func write(into writer: inout JSONWriter, of event: MonitorEvent) {
    writer.beginObject()
    writeFields(into: &writer)
    if let date = event.date { writer.field("time", iso8601(date)) }
    writer.field("id", Int(event.id))
    if event.detectedAtStart { writer.field("detectedAtStart", true) }
    writer.endObject()
  }

  /// Appends the action's JSON object to `writer`.
  func write(into writer: inout JSONWriter) {
    writer.beginObject()
    writeFields(into: &writer)
    writer.endObject()
  }

  /// The object's fields, for a caller that adds its own before it closes.
  func writeFields(into writer: inout JSONWriter) {
    writer.field("event", eventName)
    switch self {
    case .didChangeAuthorization(let status):
      writer.field("status", status.rawValue)
    case .didDetermineState(let state, let region):
      writer.field("state", state.rawValue)
      writer.object("region") { region.write(into: &$0) }
    case .didEnterRegion(let region), .didExitRegion(let region), .didStartMonitoring(let region):
      writer.object("region") { region.write(into: &$0) }
    case .didFailWithError(let error):
      writer.object("error") { error.write(into: &$0) }
    case .didPauseLocationUpdates, .didResumeLocationUpdates:
      break
    case .didUpdateHeading(let heading):
      writer.object("heading") { heading.write(into: &$0) }
    case .didUpdateLocations(let locations):
      writer.beginArray("locations")
      for location in locations {
        writer.element()
        writer.beginObject()
        location.write(into: &writer)
        writer.endObject()
      }
      writer.endArray()
    case .didVisit(let visit):
      writer.object("visit") { visit.write(into: &$0) }
    case .monitoringDidFail(let region, let error):
      if let region { writer.object("region") { region.write(into: &$0) } }
      writer.object("error") { error.write(into: &$0) }
    case .didChangeSignalIntegrity(let integrity):
      writer.object("integrity") { integrity.writeFields(into: &$0) }
    }
  }
}

extension Location {
  func write(into writer: inout JSONWriter) {
    writer.field("timestamp", timestamp)
    writer.field("latitude", coordinate.latitude)
    writer.field("longitude", coordinate.longitude)
    // Altitude means something only for a 3D fix, which is what a vertical accuracy or an
    // ellipsoidal altitude shows; a 2D fix's altitude is left out.
    if verticalAccuracy >= 0 || ellipsoidalAltitude != nil { writer.field("altitude", altitude) }
    if let ellipsoidalAltitude { writer.field("ellipsoidalAltitude", ellipsoidalAltitude) }
    writer.field("horizontalAccuracy", nonNegative: horizontalAccuracy)
    writer.field("verticalAccuracy", nonNegative: verticalAccuracy)
    writer.field("speed", nonNegative: speed)
    writer.field("speedAccuracy", nonNegative: speedAccuracy)
    writer.field("course", nonNegative: course)
    writer.field("courseAccuracy", nonNegative: courseAccuracy)
    if let fixQuality { writer.field("fixQuality", fixQuality.rawValue) }
    if let satellitesUsed { writer.field("satellitesUsed", satellitesUsed) }
    if let correctionAge { writer.field("correctionAge", correctionAge) }
    if let correctionStation { writer.field("correctionStation", correctionStation) }
    // Replayed or simulated: said, so that no reader takes it for a receiver's.
    if sourceInformation?.isSimulatedBySoftware == true { writer.field("simulated", true) }
  }
}

extension Heading {
  func write(into writer: inout JSONWriter) {
    writer.field("timestamp", timestamp)
    writer.field("trueHeading", nonNegative: trueHeading)
    writer.field("magneticHeading", nonNegative: magneticHeading)
    writer.field("headingAccuracy", nonNegative: headingAccuracy)
  }
}

extension Region {
  func write(into writer: inout JSONWriter) {
    writer.field("identifier", identifier)
    writer.field("latitude", center.latitude)
    writer.field("longitude", center.longitude)
    writer.field("radius", radius)
    writer.field("notifyOnEntry", notifyOnEntry)
    writer.field("notifyOnExit", notifyOnExit)
  }
}

extension Visit {
  func write(into writer: inout JSONWriter) {
    writer.field("latitude", coordinate.latitude)
    writer.field("longitude", coordinate.longitude)
    writer.field("horizontalAccuracy", nonNegative: horizontalAccuracy)
    writer.field("arrivalDate", arrivalDate)
    if isDeparture { writer.field("departureDate", departureDate) }
  }
}

extension LocationManager.Error {
  func write(into writer: inout JSONWriter) {
    writer.field("code", code.rawValue)
    writer.field("message", message)
    // A cause that cannot go away (the run ends) is told from one that is waited out.
    writer.field("permanent", reason?.isPermanent == true)
  }
}

extension JSONWriter {
  /// A date as ISO 8601 in UTC with milliseconds, `2024-05-01T08:00:00.000Z`, its digits
  /// written straight into the buffer.
  mutating func field(_ key: StaticString, _ date: Date) {
    let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
    let (days, millisecondOfDay) = milliseconds.floorDividedWithRemainder(by: 86_400_000)
    let day = UTCDate(daysSince1970: days)
    guard (0...9999).contains(day.year) else { return field(key, iso8601(date)) }
    field(key, year: day.year, month: day.month, day: day.day, millisecondOfDay: Int(millisecondOfDay))
  }
}

/// Actions as JSON lines, gathered in one buffer that is reused: for a program writing many
/// (a fast replay's), without a string made for each.
public struct ActionJSONLines {
  private var writer: JSONWriter

  /// An empty buffer with room for `capacity` bytes before it grows.
  public init(capacity: Int = 1 << 16) {
    writer = JSONWriter(capacity: capacity)
  }

  /// Appends `action`'s line (the action's `jsonLine`) and its newline.
  public mutating func append(_ action: LocationManager.Action) {
    action.write(into: &writer)
    writer.newline()
  }

  /// Appends the line of `action`, one of a monitor's `event` (see
  /// ``MonitorEvent/actions(for:)``), with what the event adds: `"time"` (the fix's),
  /// `"id"`, and `"detectedAtStart": true` for a crossing found at a restart.
  public mutating func append(_ action: LocationManager.Action, of event: MonitorEvent) {
    action.write(into: &writer, of: event)
    writer.newline()
  }

  /// The lines appended since the last ``removeAll()``, as UTF-8.
  public var bytes: [UInt8] { writer.bytes }

  /// Empties the buffer, keeping its room.
  public mutating func removeAll() {
    writer.removeAll()
  }
}

extension Int64 {
  /// The floor quotient and the non-negative remainder.
  fileprivate func floorDividedWithRemainder(by divisor: Int64) -> (Int64, Int64) {
    let remainder = ((self % divisor) + divisor) % divisor
    return ((self - remainder) / divisor, remainder)
  }
}

/// ISO 8601 in UTC with milliseconds: `2024-05-01T08:00:00.000Z`.
package func iso8601(_ date: Date) -> String {
  let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
  return UTCTimestamp(nanosecondsSince1970: milliseconds * 1_000_000).description
}
