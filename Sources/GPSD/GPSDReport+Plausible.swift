import NMEA

/// The same ranges the NMEA decoders enforce (``Plausible``), for gpsd's reports: a report
/// with a value outside them is dropped whole, as a sentence with such a field is.
extension GPSDReport {
  /// The first field holding a value no receiver can have, or `nil`.
  var implausibleField: String? {
    switch self {
    case .tpv(let tpv):
      return Self.first([
        ("lat", tpv.lat, -90...90), ("lon", tpv.lon, -180...180), ("alt", tpv.alt, Plausible.altitude),
        ("altHAE", tpv.altHAE, Plausible.altitude), ("altMSL", tpv.altMSL, Plausible.altitude),
        ("geoidSep", tpv.geoidSep, Plausible.geoidSeparation), ("track", tpv.track, Plausible.direction),
        ("magvar", tpv.magvar, Plausible.variation), ("speed", tpv.speed, Plausible.speed), ("climb", tpv.climb, Plausible.climb),
        ("eph", tpv.eph, Plausible.error), ("epx", tpv.epx, Plausible.error), ("epy", tpv.epy, Plausible.error),
        ("epv", tpv.epv, Plausible.error), ("eps", tpv.eps, Plausible.error), ("epd", tpv.epd, Plausible.error),
        ("mode", tpv.mode.map(Double.init), 0...3),
      ])
    case .sky(let sky):
      if let field = Self.first([
        ("hdop", sky.hdop, Plausible.dilution), ("vdop", sky.vdop, Plausible.dilution), ("pdop", sky.pdop, Plausible.dilution),
      ]) {
        return field
      }
      for satellite in sky.satellites ?? [] {
        if let field = Self.first([
          ("el", satellite.el, -90...90), ("az", satellite.az, Plausible.direction), ("ss", satellite.ss, 0...100),
          ("PRN", satellite.PRN.map(Double.init), 0...Double(SatelliteNumbers.limit - 1)),
        ]) {
          return "satellites." + field
        }
      }
      return nil
    case .gst(let gst):
      return Self.first([
        ("rms", gst.rms, Plausible.error), ("major", gst.major, Plausible.error), ("minor", gst.minor, Plausible.error),
        ("orient", gst.orient, Plausible.direction), ("lat", gst.lat, Plausible.error), ("lon", gst.lon, Plausible.error),
        ("alt", gst.alt, Plausible.error),
      ])
    case .att(let att):
      return Self.first([("heading", att.heading, Plausible.direction)])
    default:
      return nil
    }
  }

  private static func first(_ fields: [(String, Double?, ClosedRange<Double>)]) -> String? {
    for (name, value, range) in fields {
      if let value, !range.contains(value) { return name }
    }
    return nil
  }
}
