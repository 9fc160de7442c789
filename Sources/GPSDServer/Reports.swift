import NMEA
import Plumbing

/// gpsd's reports, written the way its clients read them: one compact object per line,
/// `"class"` first (libgps finds the class by that exact text), parents before their
/// dependants (`mode` before `lat`), unknown values left out (never `null` or `NaN`), numbers
/// in gpsd's precisions, and `\r\n` at the end (Python's `gps` module wants the CR). Only
/// fields libgps 3.22 knows are written: it gives up on an object holding an unknown array or
/// object, and some versions on unknown fields at all.
enum Reports {
  /// The protocol's major version: clients refuse any other.
  static let protocolMajor = 3

  static func version(release: String, protocolMinor: Int, into writer: inout JSONWriter) {
    writer.line { writer in
      writer.field("class", "VERSION")
      writer.field("release", release)
      writer.field("rev", release)
      writer.field("proto_major", protocolMajor)
      writer.field("proto_minor", protocolMinor)
    }
  }

  /// `DEVICES`: libgps 3.22 loops forever on more than 4 devices; there is at most one.
  static func devices(_ device: ServedDevice?, into writer: inout JSONWriter) {
    writer.line { writer in
      writer.field("class", "DEVICES")
      writer.beginArray("devices")
      if let device {
        writer.element()
        deviceFields(device, into: &writer)
      }
      writer.endArray()
    }
  }

  static func device(_ device: ServedDevice, into writer: inout JSONWriter) {
    deviceFields(device, into: &writer)
    writer.lineEnd()
  }

  /// The notification gpsd sends when its device goes away.
  static func deviceGone(path: String, into writer: inout JSONWriter) {
    writer.line { writer in
      writer.field("class", "DEVICE")
      writer.field("path", path)
      writer.field("activated", 0)
    }
  }

  private static func deviceFields(_ device: ServedDevice, into writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("class", "DEVICE")
    writer.field("path", device.path)
    writer.field("driver", "NMEA0183")
    writer.field("activated", device.activated.description)
    writer.field("flags", 1)  // SEEN_GPS
    if let bps = device.bitsPerSecond {
      writer.field("native", 0)
      writer.field("bps", bps)
      writer.field("parity", "N")
      writer.field("stopbits", 1)
    }
    writer.field("cycle", device.cycle, decimals: 2)
    writer.endObject()
  }

  static func watch(_ policy: WatchPolicy, into writer: inout JSONWriter) {
    writer.line { writer in
      writer.field("class", "WATCH")
      writer.field("enable", policy.enable)
      writer.field("json", policy.json)
      writer.field("nmea", policy.nmea)
      writer.field("raw", policy.raw)
      writer.field("scaled", policy.scaled)
      writer.field("timing", policy.timing)
      writer.field("split24", policy.split24)
      writer.field("pps", policy.pps)
      if let device = policy.device { writer.field("device", device) }
    }
  }

  static func error(_ message: String, into writer: inout JSONWriter) {
    writer.line { writer in
      writer.field("class", "ERROR")
      writer.field("message", message)
    }
  }

  /// TPV: `mode` always (1 without a fix), then what is known.
  static func tpv(_ fix: Fix, device: String, into writer: inout JSONWriter) {
    writer.line { tpvFields(fix, device: device, into: &$0) }
  }

  private static func tpvFields(_ fix: Fix, device: String, into writer: inout JSONWriter) {
    writer.field("class", "TPV")
    writer.field("device", device)
    let mode: Int =
      switch fix.mode {
      case .none: 1
      case .twoD: 2
      case .threeD: 3
      }
    if mode > 1, let status = status(fix.quality) { writer.field("status", status) }
    writer.field("mode", mode)
    if let timestamp = fix.timestamp { writer.field("time", timestamp.description) }
    guard mode > 1, let latitude = fix.latitude, let longitude = fix.longitude else { return }
    writer.field("lat", latitude, decimals: 9)
    writer.field("lon", longitude, decimals: 9)
    if mode == 3 {
      if let hae = fix.ellipsoidalAltitude { writer.field("altHAE", hae, decimals: 4) }
      if let msl = fix.altitude {
        writer.field("altMSL", msl, decimals: 4)
        writer.field("alt", msl, decimals: 4)
      }
    }
    if let estimate = fix.errorEstimate {
      if let east = estimate.longitude { writer.field("epx", east, decimals: 3) }
      if let north = estimate.latitude { writer.field("epy", north, decimals: 3) }
    }
    if mode == 3, let vertical = fix.verticalAccuracy { writer.field("epv", vertical, decimals: 3) }
    if let course = fix.course { writer.field("track", course, decimals: 4) }
    if let variation = fix.magneticVariation { writer.field("magvar", variation, decimals: 1) }
    if let speed = fix.speed { writer.field("speed", speed, decimals: 3) }
    if let horizontal = fix.horizontalAccuracy { writer.field("eph", horizontal, decimals: 3) }
    if mode == 3, let separation = fix.geoidSeparation { writer.field("geoidSep", separation, decimals: 3) }
  }

  /// gpsd's `status` for a fix quality, written only from DGPS up (as gpsd does).
  static func status(_ quality: FixQuality) -> Int? {
    switch quality {
    case .dgps: 2
    case .rtkFixed: 3
    case .rtkFloat: 4
    case .deadReckoning: 5
    case .simulator: 8
    case .pps: 9
    case .invalid, .gps, .manual: nil
    }
  }

  /// The most satellites a SKY lists (gpsd's MAXCHANNELS).
  static let maximumSatellites = 140

  /// SKY: the DOPs and the satellites in view, numbered as gpsd numbers them.
  static func sky(_ fix: Fix, device: String, into writer: inout JSONWriter) {
    writer.line { skyFields(fix, device: device, into: &$0) }
  }

  private static func skyFields(_ fix: Fix, device: String, into writer: inout JSONWriter) {
    writer.field("class", "SKY")
    writer.field("device", device)
    if let timestamp = fix.timestamp { writer.field("time", timestamp.description) }
    if let vdop = fix.vdop { writer.field("vdop", vdop, decimals: 2) }
    if let hdop = fix.hdop { writer.field("hdop", hdop, decimals: 2) }
    if let pdop = fix.pdop { writer.field("pdop", pdop, decimals: 2) }
    let satellites = fix.satellites.prefix(maximumSatellites)
    writer.field("nSat", satellites.count)
    writer.field("uSat", satellites.filter(\.isUsed).count)
    guard !satellites.isEmpty else { return }
    writer.beginArray("satellites")
    for satellite in satellites {
      let numbering = GPSDNumbering(satellite)
      writer.element()
      writer.beginObject()
      writer.field("PRN", numbering.prn)
      if let elevation = satellite.elevation { writer.field("el", Double(elevation), decimals: 1) }
      if let azimuth = satellite.azimuth { writer.field("az", Double(azimuth), decimals: 1) }
      if let snr = satellite.snr { writer.field("ss", Double(snr), decimals: 1) }
      writer.field("used", satellite.isUsed)
      if let system = numbering.system {
        writer.field("gnssid", system.gnssID)
        writer.field("svid", system.svid)
      }
      writer.endObject()
    }
    writer.endArray()
  }

  /// GST: the receiver's 1σ error estimates.
  static func gst(_ fix: Fix, device: String, into writer: inout JSONWriter) {
    writer.line { gstFields(fix, device: device, into: &$0) }
  }

  private static func gstFields(_ fix: Fix, device: String, into writer: inout JSONWriter) {
    writer.field("class", "GST")
    writer.field("device", device)
    if let timestamp = fix.timestamp { writer.field("time", timestamp.description) }
    guard let estimate = fix.errorEstimate else { return }
    if let value = estimate.rangeRMS { writer.field("rms", value, decimals: 3) }
    if let value = estimate.semiMajor { writer.field("major", value, decimals: 3) }
    if let value = estimate.semiMinor { writer.field("minor", value, decimals: 3) }
    if let value = estimate.orientation { writer.field("orient", value, decimals: 3) }
    if let value = estimate.latitude { writer.field("lat", value, decimals: 3) }
    if let value = estimate.longitude { writer.field("lon", value, decimals: 3) }
    if let value = estimate.altitude { writer.field("alt", value, decimals: 3) }
  }

  /// ATT: the heading of a heading sensor or dual-antenna receiver.
  static func att(_ fix: Fix, device: String, into writer: inout JSONWriter) {
    guard let heading = fix.trueHeading else { return }
    writer.line { writer in
      writer.field("class", "ATT")
      writer.field("device", device)
      if let timestamp = fix.timestamp { writer.field("time", timestamp.description) }
      writer.field("heading", heading, decimals: 2)
    }
  }

  /// POLL: the latest fix's TPV, GST and SKY, as arrays, with the time of asking.
  static func poll(_ fix: Fix?, device: ServedDevice?, now: UTCTimestamp, into writer: inout JSONWriter) {
    writer.line { writer in
      writer.field("class", "POLL")
      writer.field("time", now.description)
      let active = fix != nil && device != nil
      writer.field("active", active ? 1 : 0)
      for (key, fields) in [("tpv", tpvFields), ("gst", gstFields), ("sky", skyFields)] as [(StaticString, FieldsWriter)] {
        writer.beginArray(key)
        if let fix, let device, active {
          writer.element()
          writer.beginObject()
          fields(fix, device.path, &writer)
          writer.endObject()
        }
        writer.endArray()
      }
    }
  }

  private typealias FieldsWriter = (Fix, String, inout JSONWriter) -> Void
}

/// A satellite's number the way gpsd gives it: its PRN in gpsd's extended numbering, and
/// u-blox style system and satellite IDs (`gnssid`, `svid`) when the system is known.
struct GPSDNumbering {
  var prn: Int
  var system: (gnssID: Int, svid: Int)?

  init(_ satellite: Fix.Satellite) {
    let number = satellite.number
    switch satellite.constellation ?? Constellation(nmeaPRN: number) {
    case .gps?:
      prn = number
      system = (0, number)
    case .sbas?:
      prn = number
      system = (1, number < 100 ? number + 87 : number)
    case .glonass?:
      let svid = number > 64 ? number - 64 : number
      prn = 64 + svid
      system = (6, svid)
    case .galileo?:
      let svid = number > 300 ? number - 300 : (number > 100 ? number - 100 : number)
      prn = 300 + svid
      system = (2, svid)
    case .beidou?:
      let svid = number > 400 ? number - 400 : (number > 200 ? number - 200 : number)
      prn = 400 + svid
      system = (3, svid)
    case .qzss?:
      let svid = number > 192 ? number - 192 : number
      prn = 192 + svid
      system = (5, svid)
    case .navic?:
      prn = 500 + number
      system = (7, number)
    case nil:
      prn = number
      system = nil
    }
  }
}

extension JSONWriter {
  /// One report: an object and gpsd's `\r\n`.
  mutating func line(_ body: (inout JSONWriter) -> Void) {
    beginObject()
    body(&self)
    endObject()
    lineEnd()
  }

  /// Ends a gpsd line: `\r\n`.
  mutating func lineEnd() {
    append(ascii: 0x0D)
    append(ascii: 0x0A)
  }
}
