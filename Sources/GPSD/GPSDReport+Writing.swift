import Plumbing

// gpsd's reports written the way its clients read them: one compact object per line,
// `"class"` first (libgps finds the class by that exact text), parents before their
// dependants (`mode` before `lat`), unknown values left out (never `null` or `NaN`), numbers
// in gpsd's precisions, and `\r\n` at the end (Python's `gps` module wants the CR). Only
// fields libgps 3.22 knows are written: it gives up on an object holding an unknown array or
// object, and some versions on unknown fields at all.

extension GPSDReport {
  /// The protocol's major version: clients refuse any other.
  public static let protocolMajor = 3

  /// The report as one line, `\r\n` included.
  public var line: String {
    var writer = JSONWriter(capacity: 512)
    write(into: &writer)
    return writer.string
  }

  /// Appends the report's line to `writer`.
  package func write(into writer: inout JSONWriter) {
    switch self {
    case .version(let version): writer.line { version.writeFields(into: &$0) }
    case .devices(let devices): writer.line { devices.writeFields(into: &$0) }
    case .device(let device): writer.line { device.writeFields(into: &$0) }
    case .watch(let watch): writer.line { watch.writeFields(into: &$0) }
    case .tpv(let tpv): writer.line { tpv.writeFields(into: &$0) }
    case .sky(let sky): writer.line { sky.writeFields(into: &$0) }
    case .gst(let gst): writer.line { gst.writeFields(into: &$0) }
    case .att(let att): writer.line { att.writeFields(into: &$0) }
    case .poll(let poll): writer.line { poll.writeFields(into: &$0) }
    case .error(let error):
      writer.line { writer in
        writer.field("class", "ERROR")
        if let message = error.message { writer.field("message", message) }
      }
    case .unknown(let name): writer.line { $0.field("class", name) }
    }
  }
}

extension GPSDReport.Version {
  func writeFields(into writer: inout JSONWriter) {
    writer.field("class", "VERSION")
    if let release { writer.field("release", release) }
    if let revision { writer.field("rev", revision) }
    if let protocolMajor { writer.field("proto_major", protocolMajor) }
    if let protocolMinor { writer.field("proto_minor", protocolMinor) }
  }
}

extension GPSDReport.Devices {
  /// The list, then `extra` objects as they are written (a server's own sources).
  package func writeFields(into writer: inout JSONWriter, appending extra: [String] = []) {
    writer.field("class", "DEVICES")
    writer.beginArray("devices")
    for device in devices ?? [] {
      writer.element()
      writer.beginObject()
      device.writeFields(into: &writer)
      writer.endObject()
    }
    for object in extra {
      writer.element()
      writer.write(object)
    }
    writer.endArray()
  }
}

extension GPSDReport.Device {
  func writeFields(into writer: inout JSONWriter) {
    writer.field("class", "DEVICE")
    if let path { writer.field("path", path) }
    if let driver { writer.field("driver", driver) }
    if let subtype { writer.field("subtype", subtype) }
    // gpsd writes the number 0 for a device that went away, else the time it came.
    if isGone { writer.field("activated", 0) } else if let activated { writer.field("activated", activated) }
    if let flags { writer.field("flags", flags) }
    if let native { writer.field("native", native) }
    if let bitsPerSecond { writer.field("bps", bitsPerSecond) }
    if let parity { writer.field("parity", parity) }
    if let stopBits { writer.field("stopbits", stopBits) }
    if let cycle { writer.field("cycle", cycle, decimals: 2) }
  }
}

extension GPSDWatch {
  func writeFields(into writer: inout JSONWriter) {
    writer.field("class", "WATCH")
    writer.field("enable", enable)
    writer.field("json", json)
    writer.field("nmea", nmea)
    writer.field("raw", raw)
    writer.field("scaled", scaled)
    writer.field("timing", timing)
    writer.field("split24", split24)
    writer.field("pps", pps)
    if let device { writer.field("device", device) }
    // gpsbridge's extension, said back only to a client that asked for it.
    if regions { writer.field("regions", true) }
    if integrity { writer.field("integrity", true) }
    if switches { writer.field("switches", true) }
  }
}

extension GPSDReport.TPV {
  func writeFields(into writer: inout JSONWriter) {
    writer.field("class", "TPV")
    if let device { writer.field("device", device) }
    if let status { writer.field("status", status.rawValue) }
    if let mode { writer.field("mode", mode.rawValue) }
    if let time { writer.field("time", time) }
    if let timeError { writer.field("ept", timeError, decimals: 3) }
    if let latitude { writer.field("lat", latitude, decimals: 9) }
    if let longitude { writer.field("lon", longitude, decimals: 9) }
    if let ellipsoidalAltitude { writer.field("altHAE", ellipsoidalAltitude, decimals: 4) }
    if let altitudeMSL { writer.field("altMSL", altitudeMSL, decimals: 4) }
    if let altitude { writer.field("alt", altitude, decimals: 4) }
    if let longitudeError { writer.field("epx", longitudeError, decimals: 3) }
    if let latitudeError { writer.field("epy", latitudeError, decimals: 3) }
    if let verticalError { writer.field("epv", verticalError, decimals: 3) }
    if let course { writer.field("track", course, decimals: 4) }
    if let magneticCourse { writer.field("magtrack", magneticCourse, decimals: 4) }
    if let magneticVariation { writer.field("magvar", magneticVariation, decimals: 1) }
    if let speed { writer.field("speed", speed, decimals: 3) }
    if let climb { writer.field("climb", climb, decimals: 3) }
    if let courseError { writer.field("epd", courseError, decimals: 4) }
    if let speedError { writer.field("eps", speedError, decimals: 2) }
    if let climbError { writer.field("epc", climbError, decimals: 2) }
    if let horizontalError { writer.field("eph", horizontalError, decimals: 3) }
    if let geoidSeparation { writer.field("geoidSep", geoidSeparation, decimals: 3) }
    if let sphericalError { writer.field("sep", sphericalError, decimals: 3) }
    if let differentialAge { writer.field("dgpsAge", differentialAge, decimals: 1) }
    if let differentialStation { writer.field("dgpsSta", differentialStation) }
    if let antennaStatus { writer.field("ant", antennaStatus) }
    if let antennaPower { writer.field("antPwr", antennaPower) }
    if let jamming { writer.field("jam", jamming) }
  }
}

extension GPSDReport.SKY {
  func writeFields(into writer: inout JSONWriter) {
    writer.field("class", "SKY")
    if let device { writer.field("device", device) }
    if let time { writer.field("time", time) }
    if let longitudeDOP { writer.field("xdop", longitudeDOP, decimals: 2) }
    if let latitudeDOP { writer.field("ydop", latitudeDOP, decimals: 2) }
    if let verticalDOP { writer.field("vdop", verticalDOP, decimals: 2) }
    if let timeDOP { writer.field("tdop", timeDOP, decimals: 2) }
    if let horizontalDOP { writer.field("hdop", horizontalDOP, decimals: 2) }
    if let geometricDOP { writer.field("gdop", geometricDOP, decimals: 2) }
    if let positionDOP { writer.field("pdop", positionDOP, decimals: 2) }
    if let visibleCount { writer.field("nSat", visibleCount) }
    if let usedCount { writer.field("uSat", usedCount) }
    guard let satellites, !satellites.isEmpty else { return }
    writer.beginArray("satellites")
    for satellite in satellites {
      writer.element()
      writer.beginObject()
      if let prn = satellite.prn { writer.field("PRN", prn) }
      if let elevation = satellite.elevation { writer.field("el", elevation, decimals: 1) }
      if let azimuth = satellite.azimuth { writer.field("az", azimuth, decimals: 1) }
      if let strength = satellite.signalStrength { writer.field("ss", strength, decimals: 1) }
      if let used = satellite.used { writer.field("used", used) }
      if let gnssID = satellite.gnssID { writer.field("gnssid", gnssID) }
      if let svID = satellite.svID { writer.field("svid", svID) }
      writer.endObject()
    }
    writer.endArray()
  }
}

extension GPSDReport.GST {
  func writeFields(into writer: inout JSONWriter) {
    writer.field("class", "GST")
    if let device { writer.field("device", device) }
    if let time { writer.field("time", time) }
    if let rangeRMS { writer.field("rms", rangeRMS, decimals: 3) }
    if let semiMajor { writer.field("major", semiMajor, decimals: 3) }
    if let semiMinor { writer.field("minor", semiMinor, decimals: 3) }
    if let orientation { writer.field("orient", orientation, decimals: 3) }
    if let latitudeError { writer.field("lat", latitudeError, decimals: 3) }
    if let longitudeError { writer.field("lon", longitudeError, decimals: 3) }
    if let altitudeError { writer.field("alt", altitudeError, decimals: 3) }
  }
}

extension GPSDReport.ATT {
  func writeFields(into writer: inout JSONWriter) {
    writer.field("class", "ATT")
    if let device { writer.field("device", device) }
    if let time { writer.field("time", time) }
    if let heading { writer.field("heading", heading, decimals: 2) }
  }
}

extension GPSDReport.Poll {
  func writeFields(into writer: inout JSONWriter) {
    writer.field("class", "POLL")
    if let time { writer.field("time", time) }
    if let active { writer.field("active", active) }
    writer.beginArray("tpv")
    for tpv in tpv ?? [] { writer.elementObject { tpv.writeFields(into: &$0) } }
    writer.endArray()
    writer.beginArray("gst")
    for gst in gst ?? [] { writer.elementObject { gst.writeFields(into: &$0) } }
    writer.endArray()
    writer.beginArray("sky")
    for sky in sky ?? [] { writer.elementObject { sky.writeFields(into: &$0) } }
    writer.endArray()
  }
}

extension JSONWriter {
  /// One report: an object and gpsd's `\r\n`.
  package mutating func line(_ body: (inout JSONWriter) -> Void) {
    beginObject()
    body(&self)
    endObject()
    append(ascii: 0x0D)
    append(ascii: 0x0A)
  }

  /// One object as an element of the array being written.
  mutating func elementObject(_ body: (inout JSONWriter) -> Void) {
    element()
    beginObject()
    body(&self)
    endObject()
  }
}
