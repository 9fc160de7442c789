import Geomagnetism
import NMEA
import Plumbing
import Trigonometry

/// The figures gpsd adds to what an NMEA receiver says, computed as gpsd computes them, so
/// that its clients show the same: error estimates from the DOPs and gpsd's user-equivalent
/// range errors, the DOPs NMEA does not carry from the sky's geometry, and rates of change
/// (climb, speed, track and climb errors) from the fix before, with the speed itself when the
/// receiver states none (the distance from the fix before over the time between, as the
/// location engine gives it too). One value per receiver, fed its fixes in order.
///
/// Not computed: a geoid separation the receiver did not send (gpsd takes it from a model of
/// the geoid, which gpsbridge does not carry).
package struct GPSDErrorModel: Sendable {
  /// gpsd's user-equivalent range errors, metres at 95 % confidence: horizontal, vertical,
  /// and position (for `eph` and `sep`), without and with DGPS.
  static let uere = (horizontal: 15.0, vertical: 23.0, position: 19.0)
  static let uereWithDGPS = (horizontal: 3.75, vertical: 5.75, position: 4.75)
  /// gpsd's time error for any NMEA time, seconds.
  static let timeError = 0.005

  /// What the error model keeps of a fix.
  struct Past: Sendable {
    var time: Int64
    var mode: GPSDReport.TPV.Mode
    var latitude: Double?
    var longitude: Double?
    /// Height for the climb: above the ellipsoid when known, else above sea level (the two
    /// differ by the geoid's separation, which does not change between two fixes).
    var height: Double?
    var epx: Double?
    var epy: Double?
    var epv: Double?
  }

  /// The latest fix, and the one before it of another time.
  private var last: Past?
  private var old: Past?

  package init() {}

  /// The reports of `fix` (see ``GPSDReport/reports(for:device:)``), with the computed figures.
  package mutating func reports(for fix: Fix, device: String) -> [GPSDReport] {
    let dops = DilutionOfPrecision(fix.satellites)
    // SKY before TPV, as gpsd sends them: clients that act on a TPV with what they last heard
    // of the sky (gpxlogger's <sat> and <hdop>) then use this epoch's, not the one before.
    var reports: [GPSDReport] = []
    if !fix.satellites.isEmpty || fix.hdop != nil {
      var sky = GPSDReport.SKY(fix, device: device)
      if let dops {
        sky.longitudeDOP = dops.x
        sky.latitudeDOP = dops.y
        sky.timeDOP = dops.time
        sky.geometricDOP = dops.geometric
        sky.horizontalDOP = sky.horizontalDOP ?? dops.horizontal
        sky.verticalDOP = sky.verticalDOP ?? dops.vertical
        sky.positionDOP = sky.positionDOP ?? dops.position
      }
      reports.append(.sky(sky))
    }
    reports.append(.tpv(tpv(for: fix, device: device, dops: dops)))
    if fix.errorEstimate != nil { reports.append(.gst(GPSDReport.GST(fix, device: device))) }
    if let heading = fix.trueHeading {
      reports.append(.att(GPSDReport.ATT(device: device, time: fix.timestamp?.description, heading: heading)))
    }
    return reports
  }

  mutating func tpv(for fix: Fix, device: String, dops: DilutionOfPrecision?) -> GPSDReport.TPV {
    var tpv = GPSDReport.TPV(fix, device: device)
    guard let time = fix.timestamp?.nanosecondsSince1970 else { return tpv }
    tpv.timeError = Self.timeError
    // The receiver's variation, else the World Magnetic Model's, as gpsd fills it in (and,
    // as gpsd, magtrack is track + magvar).
    if tpv.magneticVariation == nil, let declination = WorldMagneticModel.wmm2025.declination(for: fix) {
      tpv.magneticVariation = declination
    }
    if let variation = tpv.magneticVariation, let course = tpv.course {
      tpv.magneticCourse = Self.normalized(course + variation)
    }
    // The fix before, of another time (an updated fix of the same time looks further back).
    var elapsed = -1.0
    if let last {
      elapsed = Double(time - last.time) / 1e9
      if abs(elapsed) > 0.0099 {
        old = last
      } else if let old {
        elapsed = Double(time - old.time) / 1e9
      }
    }
    let mode = tpv.mode ?? .noFix
    if mode.rawValue >= GPSDReport.TPV.Mode.twoD.rawValue {
      let uere = fix.quality == .dgps ? Self.uereWithDGPS : Self.uere
      tpv.longitudeError = dops.map { $0.x * uere.horizontal }
      tpv.latitudeError = dops.map { $0.y * uere.horizontal }
      if mode == .threeD, let vertical = fix.vdop ?? dops?.vertical { tpv.verticalError = vertical * uere.vertical }
      tpv.horizontalError = (fix.hdop ?? dops?.horizontal).map { $0 * uere.position }
      tpv.sphericalError = (fix.pdop ?? dops?.position).map { $0 * uere.position }
      if elapsed > 0, let old, old.mode.rawValue >= GPSDReport.TPV.Mode.twoD.rawValue {
        if tpv.speed == nil, let latitude = tpv.latitude, let longitude = tpv.longitude, let fromLatitude = old.latitude,
          let fromLongitude = old.longitude,
          let distance = ellipsoidDistance(
            latitude1: fromLatitude, longitude1: fromLongitude, latitude2: latitude, longitude2: longitude),
          distance / elapsed <= 9999.9
        {
          tpv.speed = distance / elapsed
        }
        if mode == .threeD, old.mode == .threeD, let height = tpv.ellipsoidalAltitude ?? tpv.altitudeMSL, let before = old.height {
          tpv.climb = (height - before) / elapsed
        }
        let now = max(tpv.longitudeError ?? .nan, tpv.latitudeError ?? .nan)
        if let x = old.epx, let y = old.epy, now.isFinite {
          tpv.speedError = (max(x, y) + now) / elapsed
        }
        if now.isFinite, let latitude = tpv.latitude, let longitude = tpv.longitude, let fromLatitude = old.latitude,
          let fromLongitude = old.longitude,
          let adjacent = ellipsoidDistance(
            latitude1: fromLatitude, longitude1: fromLongitude, latitude2: latitude, longitude2: longitude),
          adjacent > now
        {
          let hypotenuse = (adjacent * adjacent + now * now).squareRoot()
          tpv.courseError = 2 * asin(now / hypotenuse) * 180 / .pi
        }
        if let vertical = tpv.verticalError, let before = old.epv {
          tpv.climbError = (before + vertical) / elapsed
        }
      }
    }
    last = Past(
      time: time, mode: mode, latitude: tpv.latitude, longitude: tpv.longitude, height: tpv.ellipsoidalAltitude ?? tpv.altitudeMSL,
      epx: tpv.longitudeError, epy: tpv.latitudeError, epv: tpv.verticalError)
    return tpv
  }

  static func normalized(_ degrees: Double) -> Double {
    let value = degrees.truncatingRemainder(dividingBy: 360)
    return value < 0 ? value + 360 : value
  }
}
