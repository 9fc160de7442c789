import NMEA

/// NMEA 0183 written from a fix, the way marine software (OpenCPN, plotters, kplex's clients)
/// reads a receiver: GGA, RMC, GSA, GSV, VTG and ZDA of one epoch, from the position, time
/// and sky the fix holds, so that what a virtual receiver (`best`) sends over the network is
/// exactly what its TPV shows. Fields the fix does not know are left empty, never made up;
/// a fix without a position says so (GGA quality 0, RMC status `V`).
package enum FixSentences {
  /// The epoch's sentences, each with its checksum and CR LF, in that order; nothing for a
  /// fix with neither a date nor a position (ZDA only with a date). GSV's talker is each satellite's system (GP, GL, GA, GB, GQ, GI); the others are
  /// `GN`, the talker of a fix from any system.
  package static func sentences(for fix: Fix) -> [UInt8] {
    guard fix.timestamp != nil || fix.hasPosition else { return [] }
    var writer = NMEAWriter(reservingCapacity: 1024)
    gga(fix, into: &writer)
    rmc(fix, into: &writer)
    gsa(fix, into: &writer)
    gsv(fix, into: &writer)
    vtg(fix, into: &writer)
    zda(fix, into: &writer)
    return writer.bytes
  }

  static func gga(_ fix: Fix, into writer: inout NMEAWriter) {
    writer.begin("GNGGA")
    writer.time(fix.time, decimals: 2)
    position(fix, into: &writer)
    writer.integer(fix.hasPosition ? fix.quality.ggaIndicator : 0)
    if let used = fix.satellitesUsed { writer.integer(min(used, 99), width: 2) } else { writer.empty() }
    optional(fix.hdop, decimals: 2, into: &writer)
    optional(fix.altitude, decimals: 1, into: &writer)
    writer.field("M")
    optional(fix.geoidSeparation, decimals: 1, into: &writer)
    writer.field("M")
    optional(fix.differentialAge, decimals: 1, into: &writer)
    if let station = fix.differentialStation { writer.integer(station, width: 4) } else { writer.empty() }
    writer.end()
  }

  static func rmc(_ fix: Fix, into writer: inout NMEAWriter) {
    writer.begin("GNRMC")
    writer.time(fix.time, decimals: 2)
    writer.field(fix.hasPosition ? "A" : "V")
    position(fix, into: &writer)
    optional(fix.speed.map { $0 / knot }, decimals: 3, into: &writer)
    optional(fix.course, decimals: 2, into: &writer)
    if let date = fix.timestamp?.date { writer.date(date) } else { writer.empty() }
    if let variation = fix.magneticVariation {
      writer.decimal(abs(variation), decimals: 1)
      writer.field(variation < 0 ? "W" : "E")
    } else {
      writer.empty(2)
    }
    writer.field(modeIndicator(fix))
    writer.end()
  }

  /// GSA per system (NMEA 4.10: its system ID last), twelve satellites a sentence: a
  /// receiver using twenty satellites of four systems lists all of them. One GSA with no
  /// satellite when none is known used.
  static func gsa(_ fix: Fix, into writer: inout NMEAWriter) {
    let mode = fix.mode == .threeD && fix.hasPosition ? 3 : fix.mode == .twoD && fix.hasPosition ? 2 : 1
    var systems: [(id: Int, numbers: [Int])] = []
    for satellite in fix.satellites where satellite.isUsed {
      let id = systemID(of: satellite)
      if let index = systems.firstIndex(where: { $0.id == id }) {
        systems[index].numbers.append(satellite.number)
      } else {
        systems.append((id, [satellite.number]))
      }
    }
    if systems.isEmpty { systems = [(1, [])] }
    for (id, numbers) in systems {
      for start in stride(from: 0, to: max(numbers.count, 1), by: 12) {
        let chunk = numbers.isEmpty ? [] : numbers[start..<min(numbers.count, start + 12)]
        writer.begin("GNGSA")
        writer.field("A")
        writer.integer(mode)
        for number in chunk { writer.integer(number, width: 2) }
        writer.empty(12 - chunk.count)
        optional(fix.pdop, decimals: 2, into: &writer)
        optional(fix.hdop, decimals: 2, into: &writer)
        optional(fix.vdop, decimals: 2, into: &writer)
        writer.hexadecimal(id)
        writer.end()
      }
    }
  }

  /// NMEA 4.10's system ID: 1 GPS (and SBAS), 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC.
  static func systemID(of satellite: Fix.Satellite) -> Int {
    switch satellite.constellation ?? Constellation(nmeaPRN: satellite.number) {
    case .glonass: 2
    case .galileo: 3
    case .beidou: 4
    case .qzss: 5
    case .navic: 6
    case .gps, .sbas, nil: 1
    }
  }

  /// GSV per system, four satellites a sentence; none when the sky is unknown.
  static func gsv(_ fix: Fix, into writer: inout NMEAWriter) {
    var systems: [(talker: String, satellites: [Fix.Satellite])] = []
    for satellite in fix.satellites {
      let talker = talker(of: satellite)
      if let index = systems.firstIndex(where: { $0.talker == talker }) {
        systems[index].satellites.append(satellite)
      } else {
        systems.append((talker, [satellite]))
      }
    }
    for (talker, satellites) in systems {
      let sentences = (satellites.count + 3) / 4
      for number in 0..<sentences {
        writer.begin(talker + "GSV")
        writer.integer(sentences)
        writer.integer(number + 1)
        writer.integer(satellites.count, width: 2)
        for satellite in satellites[(number * 4)..<min(satellites.count, number * 4 + 4)] {
          writer.integer(satellite.number, width: 2)
          if let elevation = satellite.elevation { writer.integer(elevation, width: 2) } else { writer.empty() }
          if let azimuth = satellite.azimuth { writer.integer(azimuth, width: 3) } else { writer.empty() }
          if let snr = satellite.snr { writer.integer(snr, width: 2) } else { writer.empty() }
        }
        writer.end()
      }
    }
  }

  static func vtg(_ fix: Fix, into writer: inout NMEAWriter) {
    writer.begin("GNVTG")
    optional(fix.course, decimals: 2, into: &writer)
    writer.field("T")
    writer.empty()
    writer.field("M")
    optional(fix.speed.map { $0 / knot }, decimals: 3, into: &writer)
    writer.field("N")
    optional(fix.speed.map { $0 * 3.6 }, decimals: 3, into: &writer)
    writer.field("K")
    writer.field(modeIndicator(fix))
    writer.end()
  }

  /// ZDA: the date and time, only with a date (a fix without one has no ZDA to give).
  static func zda(_ fix: Fix, into writer: inout NMEAWriter) {
    guard let date = fix.timestamp?.date else { return }
    writer.begin("GNZDA")
    writer.time(fix.time, decimals: 2)
    writer.integer(date.day, width: 2)
    writer.integer(date.month, width: 2)
    writer.integer(date.year, width: 4)
    writer.integer(0, width: 2)
    writer.integer(0, width: 2)
    writer.end()
  }

  /// Metres a second in a knot.
  static let knot = 1852.0 / 3600

  private static func position(_ fix: Fix, into writer: inout NMEAWriter) {
    if fix.hasPosition, let latitude = fix.latitude, let longitude = fix.longitude, latitude.isFinite, longitude.isFinite {
      writer.latitude(latitude, decimals: 7)
      writer.longitude(longitude, decimals: 7)
    } else {
      writer.empty(4)
    }
  }

  private static func optional(_ value: Double?, decimals: Int, into writer: inout NMEAWriter) {
    if let value, value.isFinite { writer.decimal(value, decimals: decimals) } else { writer.empty() }
  }

  /// RMC's and VTG's mode: N without a fix, else what the quality says.
  static func modeIndicator(_ fix: Fix) -> String {
    guard fix.hasPosition else { return "N" }
    switch fix.quality {
    case .dgps, .pps: return "D"
    case .rtkFixed: return "R"
    case .rtkFloat: return "F"
    case .deadReckoning: return "E"
    case .manual: return "M"
    case .simulator: return "S"
    case .gps, .invalid: return "A"
    }
  }

  /// The talker of a satellite's system in GSV (GPS's for one of no known system, and SBAS).
  static func talker(of satellite: Fix.Satellite) -> String {
    switch satellite.constellation ?? Constellation(nmeaPRN: satellite.number) {
    case .glonass: "GL"
    case .galileo: "GA"
    case .beidou: "GB"
    case .qzss: "GQ"
    case .navic: "GI"
    case .gps, .sbas, nil: "GP"
    }
  }
}
