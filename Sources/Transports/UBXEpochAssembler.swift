import Framing
import NMEA

/// A u-blox receiver's UBX navigation messages made into one ``Fix`` per epoch, as the NMEA
/// path makes its sentences into one: `NAV-PVT` gives the time, position and velocity,
/// `NAV-DOP` the dilutions, `NAV-SAT` the sky, and `NAV-EOE` closes the epoch exactly. A
/// receiver that sends no `NAV-EOE` has its epoch closed by the next epoch's first message.
///
/// The date is the receiver's, and only when it says it is valid and fully resolved: an
/// unresolved date (a receiver still finding its week) gives a fix with a time and no date,
/// never one made up. A fix the receiver does not call OK (`gnssFixOK`) has no position.
package struct UBXEpochAssembler: Sendable {
  private var timeOfWeek: UInt32?
  private var solution: NavigationSolution?
  private var dilution: DilutionOfPrecision?
  private var sky: SatellitesInView?
  private var ready: [Fix] = []
  /// Fixes made so far (taken or not).
  package private(set) var made = 0

  package init() {}

  /// Takes one UBX frame (others than navigation are ignored).
  package mutating func take(_ frame: UBXFrame) {
    if let end = EndOfEpoch(frame) {
      if end.timeOfWeek == timeOfWeek { close() }
      return
    }
    let key: UInt32
    if let pvt = NavigationSolution(frame) {
      key = pvt.timeOfWeek
      begin(key)
      solution = pvt
    } else if let dop = DilutionOfPrecision(frame) {
      key = dop.timeOfWeek
      begin(key)
      dilution = dop
    } else if let sat = SatellitesInView(frame) {
      key = sat.timeOfWeek
      begin(key)
      sky = sat
    }
  }

  /// The next fix complete, if any.
  package mutating func next() -> Fix? {
    ready.isEmpty ? nil : ready.removeFirst()
  }

  /// The input ended: the open epoch is complete.
  package mutating func finish() { close() }

  /// A message of epoch `key`: one of another epoch closes the open one first.
  private mutating func begin(_ key: UInt32) {
    if let timeOfWeek, timeOfWeek != key { close() }
    timeOfWeek = key
  }

  private mutating func close() {
    defer {
      timeOfWeek = nil
      solution = nil
      dilution = nil
      sky = nil
    }
    guard let solution, solution.timeIsValid else { return }
    ready.append(Self.fix(solution, dilution: dilution, sky: sky))
    made += 1
  }

  static func fix(_ pvt: NavigationSolution, dilution: DilutionOfPrecision?, sky: SatellitesInView?) -> Fix {
    // The second and nanoseconds as UTC time of day; `nano` may be negative.
    var nanoseconds = Int64(((pvt.hour * 60) + pvt.minute) * 60 + pvt.second) * 1_000_000_000 + Int64(pvt.nanosecond)
    let day: Int64 = 86_400_000_000_000
    var dayShift = 0
    if nanoseconds < 0 {
      nanoseconds += day
      dayShift = -1
    } else if nanoseconds >= day {
      nanoseconds -= day
      dayShift = 1
    }
    var fix = Fix(time: UTCTime(nanosecondsSinceMidnight: nanoseconds))
    let date = UTCDate(year: pvt.year, month: pvt.month, day: pvt.day)
    if pvt.dateIsValid, pvt.fullyResolved, date.isValid {
      let shifted = dayShift < 0 ? date.previousDay : dayShift > 0 ? date.nextDay : date
      fix.timestamp = UTCTimestamp(date: shifted, time: fix.time)
    }
    let positioned = pvt.fixIsOK && [2, 3, 4].contains(pvt.fixType)
    fix.mode = positioned ? (pvt.fixType == 2 ? .twoD : .threeD) : .none
    fix.quality =
      !positioned
      ? (pvt.fixType == 1 ? .deadReckoning : .invalid)
      : pvt.carrierSolution == 2 ? .rtkFixed : pvt.carrierSolution == 1 ? .rtkFloat : pvt.differential ? .dgps : .gps
    fix.satellitesUsed = pvt.satellitesUsed
    fix.pdop = pvt.pdop > 0 ? pvt.pdop : nil
    if let dilution {
      fix.hdop = dilution.hdop
      fix.vdop = dilution.vdop
    }
    if positioned {
      fix.latitude = pvt.latitude
      fix.longitude = pvt.longitude
      fix.speed = pvt.groundSpeed
      fix.course = pvt.headingOfMotion
      fix.magneticVariation = pvt.magneticDeclination
      fix.horizontalAccuracy = pvt.horizontalAccuracy
      if pvt.fixType != 2 {
        fix.altitude = pvt.heightAboveSeaLevel
        fix.geoidSeparation = ((pvt.heightAboveEllipsoid - pvt.heightAboveSeaLevel) * 1e3).rounded() / 1e3
        fix.verticalAccuracy = pvt.verticalAccuracy
      }
    }
    if let sky { fix.satellites = sky.satellites.compactMap(Self.satellite) }
    return fix
  }

  /// A satellite in NMEA's numbering, as a u-blox numbers it in NMEA 4.10: GLONASS 65–96,
  /// SBAS 33–64, the others by their own numbers with their system.
  static func satellite(_ satellite: SatellitesInView.Satellite) -> Fix.Satellite? {
    let (constellation, number): (Constellation, Int)
    switch satellite.system {
    case 0: (constellation, number) = (.gps, satellite.number)
    case 1: (constellation, number) = (.sbas, satellite.number - 87)
    case 2: (constellation, number) = (.galileo, satellite.number)
    case 3: (constellation, number) = (.beidou, satellite.number)
    case 5: (constellation, number) = (.qzss, satellite.number)
    case 6: (constellation, number) = (.glonass, satellite.number + 64)
    case 7: (constellation, number) = (.navic, satellite.number)
    default: return nil
    }
    return Fix.Satellite(
      constellation: constellation, number: number, elevation: satellite.elevation, azimuth: satellite.azimuth,
      snr: satellite.signalStrength > 0 ? satellite.signalStrength : nil, isUsed: satellite.isUsed)
  }
}
