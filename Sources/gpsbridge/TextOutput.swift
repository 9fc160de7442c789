import FoundationEssentials
import GPSLocation
import NMEA

/// One readable line per action, and on a terminal the receiver's ``StatusLine`` beneath
/// them. The status line is drawn only when stdout is a terminal, so none of it reaches a
/// pipe. Lines are held back until ``flush()``.
struct TextOutput: ActionOutput {
  /// The status line, when the run has one (a receiver to follow).
  let status: StatusLine?
  let showsStatus: Bool
  private var pending = ""
  /// The time of the latest location or heading, which events without a time of their own show.
  private var latest: Date?
  private(set) var failure: SystemError?

  init(status: StatusLine? = nil, showsStatus: Bool = Terminal.standardOutputIsTerminal) {
    self.status = status
    self.showsStatus = showsStatus
  }

  mutating func write(_ action: LocationManager.Action) {
    switch action {
    case .didUpdateLocations(let locations): latest = locations.last?.timestamp ?? latest
    case .didUpdateHeading(let heading): latest = heading.timestamp
    default: break
    }
    // One time base per run, the receiver's: before its first fix, events have no time yet.
    pending += Self.line(for: action, at: latest, emphasised: showsStatus) + "\n"
  }

  /// Prints the lines held back, with the status line under them.
  mutating func flush() {
    guard !pending.isEmpty, failure == nil else { return }
    if let status {
      failure = status.write(pending)
    } else {
      failure = Terminal.tryWrite(Array(pending.utf8))
    }
    pending = ""
  }

  mutating func finish() {
    flush()
    status?.clear()
  }

  /// One line: locations and headings as the stream they are; everything else is an event,
  /// marked `▶` (and bold on a terminal) so an entry or a visit stands out among the
  /// locations. Every line has a time: its own, else the latest fix's (`time`), else (before
  /// the first fix) a placeholder: the receiver's clock is the only one shown.
  static func line(for action: LocationManager.Action, at time: Date?, emphasised: Bool = false) -> String {
    func clock(_ date: Date?) -> String { date.map { String(iso8601($0).dropFirst(11).dropLast()) } ?? "--:--:--.---" }
    func coordinate(_ coordinate: LocationCoordinate2D) -> String {
      format(coordinate.latitude, 6) + ", " + format(coordinate.longitude, 6)
    }
    func event(_ kind: String, _ details: String) -> String {
      let text = clock(time) + " ▶ " + kind.padding(to: 10) + " " + details.escapingControlCharacters
      return emphasised ? "\u{1B}[1m" + text + "\u{1B}[0m" : text
    }
    switch action {
    case .didUpdateLocations(let locations):
      guard let location = locations.last else { return clock(time) + "   location   (none)" }
      var text = clock(location.timestamp) + "   location   " + coordinate(location.coordinate)
      // Centimetres (RTK) keep their digits: ±0.02 m, never ±0.0 m.
      if location.horizontalAccuracy >= 0 {
        text += "  ±" + format(location.horizontalAccuracy, location.horizontalAccuracy < 0.1 ? 2 : 1) + " m"
      }
      if location.verticalAccuracy >= 0 || location.ellipsoidalAltitude != nil { text += "  alt " + format(location.altitude, 1) + " m" }
      if location.speed >= 0 { text += "  " + format(location.speed, 1) + " m/s" }
      if location.course >= 0 { text += "  " + format(location.course, 0) + "°" }
      if let quality = location.fixQuality { text += "  " + quality.name }
      if let satellites = location.satellitesUsed { text += "  \(satellites) sats" }
      return text
    case .didUpdateHeading(let heading):
      var text = clock(heading.timestamp) + "   heading    " + format(heading.trueHeading, 1) + "° true"
      if heading.magneticHeading >= 0 { text += "  " + format(heading.magneticHeading, 1) + "° magnetic" }
      if heading.headingAccuracy >= 0 { text += "  ±" + format(heading.headingAccuracy, 1) + "°" }
      return text
    case .didEnterRegion(let region): return event("enter", region.identifier)
    case .didExitRegion(let region): return event("exit", region.identifier)
    case .didDetermineState(let state, let region): return event("state", region.identifier + ": " + state.rawValue)
    case .didStartMonitoring(let region):
      return event("monitoring", region.identifier + " (" + coordinate(region.center) + ", " + format(region.radius, 0) + " m)")
    case .monitoringDidFail(let region, let error):
      return event("monitoring", "failed" + (region.map { " for " + $0.identifier } ?? "") + ": " + error.message)
    case .didVisit(let visit):
      if visit.isDeparture {
        return event(
          "departure", coordinate(visit.coordinate) + " (arrived " + clock(visit.arrivalDate) + ", left " + clock(visit.departureDate) + ")"
        )
      }
      return event(
        "arrival",
        coordinate(visit.coordinate) + " (since " + clock(visit.arrivalDate) + ", ±" + format(visit.horizontalAccuracy, 0) + " m)")
    case .didFailWithError(let error): return event(error.code == .endOfCapture ? "end" : "error", error.message)
    case .didChangeAuthorization(let status): return event("authorized", status.rawValue)
    case .didPauseLocationUpdates: return event("paused", "")
    case .didResumeLocationUpdates: return event("resumed", "")
    case .didChangeSignalIntegrity(let integrity):
      func from(_ source: SignalIntegrity.Source?) -> String { source.map { " (\($0.rawValue))" } ?? "" }
      var said = [
        "jamming \(integrity.jamming)" + from(integrity.jammingSource), "spoofing \(integrity.spoofing)" + from(integrity.spoofingSource),
        "antenna \(integrity.antenna)" + from(integrity.antennaSource),
      ]
      if let indicator = integrity.jammingIndicator { said.append("interference \(indicator)/255") }
      return event("signals", said.joined(separator: ", "))
    }
  }
}

/// `value` with exactly `decimals` decimals, as the JSON output writes it.
func format(_ value: Double, _ decimals: Int) -> String {
  guard value.isFinite else { return String(value) }
  let divisor = (0..<decimals).reduce(Int64(1)) { power, _ in power * 10 }
  let scaled = (abs(value) * Double(divisor)).rounded()
  guard scaled < 9e18 else { return String(value) }
  let units = Int64(scaled)
  let sign = value < 0 && units != 0 ? "-" : ""
  guard decimals > 0 else { return sign + String(units) }
  let fraction = String(units % divisor)
  return sign + String(units / divisor) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
}

/// ISO 8601 in UTC with milliseconds: `2024-05-01T08:00:00.000Z`.
func iso8601(_ date: Date) -> String {
  let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
  return UTCTimestamp(nanosecondsSince1970: milliseconds * 1_000_000).description
}
