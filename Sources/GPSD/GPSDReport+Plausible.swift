import NMEA

/// The same ranges the NMEA decoders enforce (``Plausible``), for gpsd's reports: a report
/// with a value outside them is dropped whole, as a sentence with such a field is.
extension GPSDReport {
  /// The first field holding a value no receiver can have, or `nil`.
  var implausibleField: String? {
    switch self {
    case .tpv(let tpv):
      let position: [(String, Double?, ClosedRange<Double>)] = [
        ("lat", tpv.latitude, -90...90), ("lon", tpv.longitude, -180...180), ("alt", tpv.altitude, Plausible.altitude),
        ("altHAE", tpv.ellipsoidalAltitude, Plausible.altitude), ("altMSL", tpv.altitudeMSL, Plausible.altitude),
        ("geoidSep", tpv.geoidSeparation, Plausible.geoidSeparation),
      ]
      let motion: [(String, Double?, ClosedRange<Double>)] = [
        ("track", tpv.course, Plausible.direction), ("magtrack", tpv.magneticCourse, Plausible.direction),
        ("magvar", tpv.magneticVariation, Plausible.variation), ("speed", tpv.speed, Plausible.speed),
        ("climb", tpv.climb, Plausible.climb),
      ]
      let errors: [(String, Double?, ClosedRange<Double>)] = [
        ("eph", tpv.horizontalError, Plausible.error), ("epx", tpv.longitudeError, Plausible.error),
        ("epy", tpv.latitudeError, Plausible.error), ("epv", tpv.verticalError, Plausible.error),
        ("eps", tpv.speedError, Plausible.error), ("epd", tpv.courseError, Plausible.error), ("epc", tpv.climbError, Plausible.error),
        ("ept", tpv.timeError, Plausible.error),
      ]
      return Self.first(position) ?? Self.first(motion) ?? Self.first(errors)
    case .sky(let sky):
      let dilutions: [(String, Double?, ClosedRange<Double>)] = [
        ("hdop", sky.horizontalDOP, Plausible.dilution), ("vdop", sky.verticalDOP, Plausible.dilution),
        ("pdop", sky.positionDOP, Plausible.dilution), ("tdop", sky.timeDOP, Plausible.dilution),
        ("gdop", sky.geometricDOP, Plausible.dilution), ("xdop", sky.longitudeDOP, Plausible.dilution),
        ("ydop", sky.latitudeDOP, Plausible.dilution),
      ]
      if let field = Self.first(dilutions) { return field }
      for satellite in sky.satellites ?? [] {
        let fields: [(String, Double?, ClosedRange<Double>)] = [
          ("el", satellite.elevation, -90...90), ("az", satellite.azimuth, Plausible.direction), ("ss", satellite.signalStrength, 0...100),
          ("PRN", satellite.prn.map(Double.init), 0...Double(SatelliteNumbers.limit - 1)),
        ]
        if let field = Self.first(fields) { return "satellites." + field }
      }
      return nil
    case .gst(let gst):
      return Self.first([
        ("rms", gst.rangeRMS, Plausible.error), ("major", gst.semiMajor, Plausible.error), ("minor", gst.semiMinor, Plausible.error),
        ("orient", gst.orientation, Plausible.direction), ("lat", gst.latitudeError, Plausible.error),
        ("lon", gst.longitudeError, Plausible.error), ("alt", gst.altitudeError, Plausible.error),
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
