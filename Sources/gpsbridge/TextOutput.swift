import FoundationEssentials
import GPSLocation
import NMEA
import Plumbing

/// One readable line per action, and on a terminal a status line that updates in place
/// (source, fix quality, satellites, rate). The status line is drawn only when stdout is a
/// terminal, so none of it reaches a pipe. Lines are held back until ``flush()``.
struct TextOutput: ActionOutput {
  let sourceName: String
  /// What the source has thrown away, shown on the status line.
  let rejects: RejectedInput?
  let showsStatus: Bool
  private var statusShown = false
  private var recent: [Date] = []
  private var quality = "no fix"
  private var satellites: Int?
  private var pending = ""
  /// The time of the latest location or heading, which events without a time of their own show.
  private var latest: Date?
  private(set) var failure: Errno?

  init(sourceName: String, rejects: RejectedInput? = nil, showsStatus: Bool = Terminal.standardOutputIsTerminal) {
    self.sourceName = sourceName
    self.rejects = rejects
    self.showsStatus = showsStatus
  }

  mutating func write(_ action: LocationManager.Action) {
    if case .didUpdateLocations(let locations) = action, let location = locations.last {
      recent.append(location.timestamp)
      if recent.count > 11 { recent.removeFirst(recent.count - 11) }
      let dimension = location.verticalAccuracy >= 0 || location.ellipsoidalAltitude != nil ? "3D" : "2D"
      quality = dimension + " " + (location.fixQuality.map(Self.name) ?? "fix")
      satellites = location.satellitesUsed
    }
    if case .didPauseLocationUpdates = action { quality = "paused" }
    switch action {
    case .didUpdateLocations(let locations): latest = locations.last?.timestamp ?? latest
    case .didUpdateHeading(let heading): latest = heading.timestamp
    default: break
    }
    // Before any fix, events are stamped with the clock: the only time known.
    pending += Self.line(for: action, at: latest ?? Date(), emphasised: showsStatus) + "\n"
  }

  /// Prints the lines held back, then the status line under them.
  mutating func flush() {
    guard !pending.isEmpty, failure == nil else { return }
    clearStatus()
    put(pending)
    pending = ""
    drawStatus()
  }

  /// Writes `text` to stdout, remembering the first failure.
  private mutating func put(_ text: String) {
    guard failure == nil else { return }
    failure = Terminal.tryWrite(Array(text.utf8))
  }

  mutating func finish() {
    flush()
    clearStatus()
  }

  private mutating func clearStatus() {
    guard statusShown else { return }
    put("\r\u{1B}[K")
    statusShown = false
  }

  private mutating func drawStatus() {
    guard showsStatus else { return }
    var parts = [sourceName, quality]
    if let satellites { parts.append("\(satellites) satellites") }
    if recent.count >= 2, let first = recent.first, let last = recent.last, last > first {
      let rate = Double(recent.count - 1) / last.timeIntervalSince(first)
      parts.append(format(rate, 1) + " Hz")
    }
    if let rejected = rejects?.description { parts.append("rejected: " + rejected) }
    put("\u{1B}[7m " + parts.joined(separator: " │ ") + " \u{1B}[0m")
    statusShown = true
  }

  static func name(_ quality: FixQuality) -> String {
    switch quality {
    case .invalid: "no fix"
    case .gps: "GPS"
    case .dgps: "DGPS"
    case .pps: "PPS"
    case .rtkFixed: "RTK fixed"
    case .rtkFloat: "RTK float"
    case .deadReckoning: "dead reckoning"
    case .manual: "manual"
    case .simulator: "simulated"
    }
  }

  /// One line: locations and headings as the stream they are; everything else is an event,
  /// marked `▶` (and bold on a terminal) so an entry or a visit stands out among the
  /// locations. Every line has a time: its own, else the latest fix's (`time`).
  static func line(for action: LocationManager.Action, at time: Date, emphasised: Bool = false) -> String {
    func clock(_ date: Date) -> String { String(iso8601(date).dropFirst(11).dropLast()) }
    func coordinate(_ coordinate: LocationCoordinate2D) -> String {
      format(coordinate.latitude, 6) + ", " + format(coordinate.longitude, 6)
    }
    func event(_ kind: String, _ details: String) -> String {
      let text = clock(time) + " ▶ " + kind.padding(to: 10) + " " + details
      return emphasised ? "\u{1B}[1m" + text + "\u{1B}[0m" : text
    }
    switch action {
    case .didUpdateLocations(let locations):
      guard let location = locations.last else { return clock(time) + "   location   (none)" }
      var text = clock(location.timestamp) + "   location   " + coordinate(location.coordinate)
      if location.horizontalAccuracy >= 0 { text += "  ±" + format(location.horizontalAccuracy, 1) + " m" }
      if location.verticalAccuracy >= 0 || location.ellipsoidalAltitude != nil { text += "  alt " + format(location.altitude, 1) + " m" }
      if location.speed >= 0 { text += "  " + format(location.speed, 1) + " m/s" }
      if location.course >= 0 { text += "  " + format(location.course, 0) + "°" }
      if let quality = location.fixQuality { text += "  " + name(quality) }
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
    }
  }
}

/// `value` with exactly `decimals` decimals, as the JSON output writes it.
func format(_ value: Double, _ decimals: Int) -> String {
  guard value.isFinite else { return String(value) }
  var writer = JSONWriter(capacity: 24)
  writer.appendFixed(value, decimals: decimals)
  return writer.string
}
