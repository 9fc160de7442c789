import NMEA

/// Turns gpsd's reports into the same ``Fix`` values the NMEA path produces, so the engine
/// downstream cannot tell the sources apart.
///
/// A fix is made from each `TPV` that carries a time, with the satellites and DOPs of the
/// latest `SKY`, the latest `GST`'s error estimates and the latest `ATT` heading.
///
/// gpsd may report one epoch twice: when the receiver pauses mid-epoch (a busy machine, a
/// slow USB bridge) gpsd ships what it has, say the GGA's position with a speed of gpsd's own
/// making from the last two positions and no track, and the full report follows with the
/// same time. So a TPV that lacks the track, speed or altitude the stream's previous fix had
/// is held back until the next TPV: one with the same time
/// replaces it (gpsd's fuller view of that epoch), one with another time releases it as it
/// is. A TPV with the time of a fix already made is otherwise skipped (a `?POLL` repeats it).
/// ``finish()`` releases what is held at the end of the stream.
package struct GPSDFixAssembler: Sendable {
  var sky: GPSDReport.SKY?
  var gst: GPSDReport.GST?
  var heading: Double?
  var lastTime: UTCTimestamp?
  /// A fix waiting for gpsd's fuller report of its epoch.
  var held: Fix?
  /// A fix made while releasing a held one, given out by the next ``takeReady()``.
  var ready: Fix?
  /// What the last fix given out carried, to tell a partial report from a receiver that
  /// never sends speed or altitude. Kept across reconnections to the same gpsd, whose first
  /// report after connecting may be a partial one.
  package var shape = Shape()

  /// Which of the values a partial report lacks the stream's last fix had.
  package struct Shape: Hashable, Sendable {
    var speed = false
    var track = false
    var altitude = false
    package init() {}
  }

  package init() {}

  /// Takes a report; returns a fix when it completes one.
  package mutating func add(_ report: GPSDReport) -> Fix? {
    switch report {
    case .sky(let value):
      sky = value
    case .gst(let value):
      gst = value
    case .att(let value):
      heading = value.heading
    case .tpv(let tpv):
      guard let text = tpv.time, let time = UTCTimestamp(text) else { return nil }
      if time == lastTime {
        guard held != nil else {
          // Too late for this epoch, but it shows what this gpsd's full reports carry.
          learn(from: fix(from: tpv, at: time))
          return nil
        }
        held = nil
        return settle(fix(from: tpv, at: time))
      }
      lastTime = time
      let released = held
      held = nil
      let made = settle(fix(from: tpv, at: time))
      guard let released else { return made }
      ready = made
      return given(released)
    default:
      break
    }
    return nil
  }

  /// A fix made together with another one, after that one was given out.
  package mutating func takeReady() -> Fix? {
    defer { ready = nil }
    return ready
  }

  /// The fix still held back when the stream ends.
  package mutating func finish() -> Fix? {
    defer { held = nil }
    return held.map { given($0) }
  }

  /// Holds a fix that looks partial; gives out any other.
  private mutating func settle(_ fix: Fix) -> Fix? {
    let partial =
      fix.hasPosition
      && ((shape.speed && fix.speed == nil) || (shape.track && fix.course == nil)
        || (shape.altitude && fix.mode == .threeD && fix.altitude == nil))
    if partial {
      held = fix
      return nil
    }
    return given(fix)
  }

  private mutating func given(_ fix: Fix) -> Fix {
    learn(from: fix)
    return fix
  }

  private mutating func learn(from fix: Fix) {
    guard fix.hasPosition else { return }
    shape.speed = fix.speed != nil
    shape.track = fix.course != nil
    if fix.mode == .threeD { shape.altitude = fix.altitude != nil }
  }

  func fix(from tpv: GPSDReport.TPV, at time: UTCTimestamp) -> Fix {
    var fix = Fix(time: time.time, timestamp: time)
    if let sky {
      fix.satellites = (sky.satellites ?? []).compactMap { satellite in
        guard let number = satellite.prn else { return nil }
        return Fix.Satellite(
          constellation: Self.constellation(gnssID: satellite.gnssID) ?? Constellation(nmeaPRN: number), number: number,
          elevation: satellite.elevation.map { Int($0.rounded()) }, azimuth: satellite.azimuth.map { Int($0.rounded()) },
          snr: satellite.signalStrength.flatMap { $0 > 0 ? Int($0.rounded()) : nil }, isUsed: satellite.used ?? false)
      }
      fix.satellitesUsed = sky.usedCount ?? sky.satellites.map { $0.filter { $0.used == true }.count }
      fix.pdop = sky.positionDOP
      fix.hdop = sky.horizontalDOP
      fix.vdop = sky.verticalDOP
    }
    if let gst {
      fix.errorEstimate = Fix.ErrorEstimate(
        rangeRMS: gst.rangeRMS, semiMajor: gst.semiMajor, semiMinor: gst.semiMinor, orientation: gst.orientation,
        latitude: gst.latitudeError, longitude: gst.longitudeError, altitude: gst.altitudeError)
    }
    let mode: FixMode =
      switch tpv.mode {
      case .twoD: .twoD
      case .threeD: .threeD
      default: .none
      }
    guard mode != .none, let latitude = tpv.latitude, let longitude = tpv.longitude, latitude.isFinite, longitude.isFinite,
      abs(latitude) <= 90, abs(longitude) <= 180
    else { return fix }
    fix.mode = mode
    fix.quality = Self.quality(status: tpv.status)
    fix.latitude = latitude
    fix.longitude = longitude
    // gpsd keeps a 2D fix's altitude from the last 3D one; it says nothing about this fix.
    if mode == .threeD {
      fix.altitude = tpv.altitudeMSL ?? tpv.altitude
      fix.geoidSeparation = tpv.geoidSeparation ?? tpv.ellipsoidalAltitude.flatMap { hae in fix.altitude.map { hae - $0 } }
    }
    fix.speed = tpv.speed
    fix.course = tpv.course
    fix.magneticVariation = tpv.magneticVariation
    fix.differentialAge = tpv.differentialAge
    fix.differentialStation = tpv.differentialStation
    fix.trueHeading = heading
    // gpsd's own estimates (its eph is at 95%-like confidence, larger than a 1σ figure).
    fix.horizontalAccuracy =
      tpv.horizontalError
      ?? {
        guard let x = tpv.longitudeError, let y = tpv.latitudeError else { return nil }
        return (x * x + y * y).squareRoot()
      }()
    // A TPV without an altitude (gpsd sends some) has no vertical accuracy either.
    fix.verticalAccuracy = mode == .threeD && fix.altitude != nil ? tpv.verticalError : nil
    return fix
  }

  static func quality(status: GPSDReport.TPV.Status?) -> FixQuality {
    switch status {
    case .dgps: .dgps
    case .rtkFixed: .rtkFixed
    case .rtkFloat: .rtkFloat
    case .deadReckoning, .gnssAndDeadReckoning: .deadReckoning
    case .simulated: .simulator
    case .precise: .pps
    default: .gps
    }
  }

  static func constellation(gnssID: Int?) -> Constellation? {
    switch gnssID {
    case 0: .gps
    case 1: .sbas
    case 2: .galileo
    case 3: .beidou
    case 5: .qzss
    case 6: .glonass
    case 7: .navic
    default: nil
    }
  }
}
