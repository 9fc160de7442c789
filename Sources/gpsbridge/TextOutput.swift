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
    pending += Self.line(for: action) + "\n"
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

  static func line(for action: LocationManager.Action) -> String {
    let blank = String(repeating: " ", count: 12)
    func time(_ date: Date) -> String { String(iso8601(date).dropFirst(11).dropLast()) }
    func region(_ region: Region) -> String { region.identifier }
    func coordinate(_ coordinate: LocationCoordinate2D) -> String {
      format(coordinate.latitude, 6) + ", " + format(coordinate.longitude, 6)
    }
    switch action {
    case .didUpdateLocations(let locations):
      guard let location = locations.last else { return blank + " location   (none)" }
      var text = time(location.timestamp) + " location   " + coordinate(location.coordinate)
      if location.horizontalAccuracy >= 0 { text += "  ±" + format(location.horizontalAccuracy, 1) + " m" }
      if location.verticalAccuracy >= 0 || location.ellipsoidalAltitude != nil { text += "  alt " + format(location.altitude, 1) + " m" }
      if location.speed >= 0 { text += "  " + format(location.speed, 1) + " m/s" }
      if location.course >= 0 { text += "  " + format(location.course, 0) + "°" }
      if let quality = location.fixQuality { text += "  " + name(quality) }
      if let satellites = location.satellitesUsed { text += "  \(satellites) sats" }
      return text
    case .didUpdateHeading(let heading):
      var text = time(heading.timestamp) + " heading    " + format(heading.trueHeading, 1) + "° true"
      if heading.magneticHeading >= 0 { text += "  " + format(heading.magneticHeading, 1) + "° magnetic" }
      if heading.headingAccuracy >= 0 { text += "  ±" + format(heading.headingAccuracy, 1) + "°" }
      return text
    case .didEnterRegion(let value): return blank + " enter      " + region(value)
    case .didExitRegion(let value): return blank + " exit       " + region(value)
    case .didDetermineState(let state, let value): return blank + " state      " + region(value) + ": " + state.rawValue
    case .didStartMonitoring(let value):
      return blank + " monitoring " + region(value) + " (" + coordinate(value.center) + ", " + format(value.radius, 0) + " m)"
    case .monitoringDidFail(let value, let error):
      return blank + " monitoring failed" + (value.map { " for " + region($0) } ?? "") + ": " + error.message
    case .didVisit(let visit):
      if visit.isDeparture {
        return time(visit.departureDate) + " departure  " + coordinate(visit.coordinate) + " (arrived " + time(visit.arrivalDate) + ")"
      }
      return time(visit.arrivalDate) + " arrival    " + coordinate(visit.coordinate) + " (±" + format(visit.horizontalAccuracy, 0) + " m)"
    case .didFailWithError(let error): return blank + " error      " + error.message
    case .didChangeAuthorization(let status): return blank + " authorization " + status.rawValue
    case .didPauseLocationUpdates: return blank + " paused"
    case .didResumeLocationUpdates: return blank + " resumed"
    }
  }
}

/// `value` with exactly `decimals` decimals.
func format(_ value: Double, _ decimals: Int) -> String {
  guard value.isFinite else { return String(value) }
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  let scaled = (abs(value) * scale).rounded()
  let whole = (scaled / scale).rounded(.down)
  var text = (value < 0 && scaled != 0 ? "-" : "") + String(Int64(whole))
  if decimals > 0 {
    let fraction = Int64(scaled - whole * scale)
    let digits = String(fraction)
    text += "." + String(repeating: "0", count: max(0, decimals - digits.count)) + digits
  }
  return text
}
