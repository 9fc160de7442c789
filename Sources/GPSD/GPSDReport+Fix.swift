import NMEA

// A receiver's fix as gpsd reports it: what `gpsbridge serve` sends (the other direction,
// reports to fixes, is GPSDFixAssembler).

extension GPSDReport.TPV {
  /// The fix's TPV: `mode` always (1 without a fix), then what is known.
  public init(_ fix: Fix, device: String) {
    self.init(device: device, time: fix.timestamp?.description)
    let mode: Mode =
      switch fix.mode {
      case .none: .noFix
      case .twoD: .twoD
      case .threeD: .threeD
      }
    self.mode = mode
    // gpsd writes the status only from DGPS up.
    if mode != .noFix { status = Self.status(fix.quality) }
    guard mode != .noFix, let latitude = fix.latitude, let longitude = fix.longitude else { return }
    self.latitude = latitude
    self.longitude = longitude
    if mode == .threeD {
      ellipsoidalAltitude = fix.ellipsoidalAltitude
      altitudeMSL = fix.altitude
      altitude = fix.altitude
      geoidSeparation = fix.geoidSeparation
    }
    course = fix.course
    magneticVariation = fix.magneticVariation
    speed = fix.speed
    differentialAge = fix.differentialAge
    differentialStation = fix.differentialStation
  }

  /// gpsd's `status` for a fix quality, from DGPS up (as gpsd writes it).
  static func status(_ quality: FixQuality) -> Status? {
    switch quality {
    case .dgps: .dgps
    case .rtkFixed: .rtkFixed
    case .rtkFloat: .rtkFloat
    case .deadReckoning: .deadReckoning
    case .simulator: .simulated
    case .pps: .precise
    case .invalid, .gps, .manual: nil
    }
  }
}

extension GPSDReport.SKY {
  /// The most satellites a SKY lists (gpsd's MAXCHANNELS).
  public static let maximumSatellites = 140

  /// The fix's SKY: the DOPs and the satellites in view, numbered as gpsd numbers them.
  public init(_ fix: Fix, device: String) {
    self.init(device: device, time: fix.timestamp?.description)
    verticalDOP = fix.vdop
    horizontalDOP = fix.hdop
    positionDOP = fix.pdop
    let satellites = fix.satellites.prefix(Self.maximumSatellites)
    visibleCount = satellites.count
    usedCount = satellites.filter(\.isUsed).count
    guard !satellites.isEmpty else { return }
    self.satellites = satellites.map { satellite in
      let numbering = GPSDNumbering(satellite)
      return Satellite(
        prn: numbering.prn, elevation: satellite.elevation.map(Double.init), azimuth: satellite.azimuth.map(Double.init),
        signalStrength: satellite.snr.map(Double.init), used: satellite.isUsed, gnssID: numbering.system?.gnssID,
        svID: numbering.system?.svid)
    }
  }
}

extension GPSDReport.GST {
  /// The fix's GST: the receiver's 1σ error estimates.
  public init(_ fix: Fix, device: String) {
    self.init(device: device, time: fix.timestamp?.description)
    guard let estimate = fix.errorEstimate else { return }
    rangeRMS = estimate.rangeRMS
    semiMajor = estimate.semiMajor
    semiMinor = estimate.semiMinor
    orientation = estimate.orientation
    latitudeError = estimate.latitude
    longitudeError = estimate.longitude
    altitudeError = estimate.altitude
  }
}

extension GPSDReport {
  /// The reports one fix makes, in gpsd's order: SKY when there are satellites or DOPs; TPV;
  /// GST when the receiver sent error estimates; ATT when it has a heading. With the figures
  /// gpsd computes from this fix alone (see ``GPSDErrorModel``; those that need the fix
  /// before come from a model fed every fix).
  public static func reports(for fix: Fix, device: String) -> [GPSDReport] {
    var model = GPSDErrorModel()
    return model.reports(for: fix, device: device)
  }
}

/// A satellite's number the way gpsd gives it: its PRN in gpsd's extended numbering, and
/// u-blox style system and satellite IDs (`gnssid`, `svid`) when the system is known.
package struct GPSDNumbering {
  package var prn: Int
  package var system: (gnssID: Int, svid: Int)?

  package init(_ satellite: Fix.Satellite) {
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
