import NMEA
import Plumbing

/// Writes one epoch's sentences the way the simulation's receiver profile does.
struct ReceiverWriter: Sendable {
  let profile: ReceiverProfile
  let sky: Sky
  let start: UTCTimestamp
  let positionNoise: Double
  let hdop: Double
  var noise: SplitMix64
  var writer = NMEAWriter(reservingCapacity: 2048)
  /// The satellites in view at the last epoch written.
  var lastView: [Sky.View] = []
  let attack: Attack?
  /// What a u-blox under a planned attack said of its signals before the last epoch.
  var lastIntegrity: [UInt8] = []

  /// Geoid separation (ellipsoid minus mean sea level), metres, the same all along.
  static let geoidSeparation = 47.3

  init(simulation: Simulation) {
    profile = simulation.profile
    let constellations: [Constellation] =
      switch simulation.profile.kind {
      case .ublox, .ublox8, .mtk: [.gps, .glonass]
      case .rtk: [.gps, .galileo, .beidou]
      default: [.gps]
      }
    sky = Sky(seed: simulation.seed, constellations: constellations)
    start = simulation.route.start
    positionNoise = simulation.positionNoise
    hdop = simulation.hdop
    noise = SplitMix64(seed: simulation.seed &+ 0x5EED)
    attack = simulation.attack
  }

  /// What the receiver measures and reports at one epoch.
  struct Measurement {
    var time: UTCTime
    var date: UTCDate
    var latitude: Double
    var longitude: Double
    var altitude: Double
    var speed: Double
    var course: Double
    var hasFix: Bool
    var view: [Sky.View]
    var isWholeSecond: Bool
  }

  mutating func sentences(for truth: RouteState) -> [UInt8] {
    writer = NMEAWriter(reservingCapacity: 1024)
    let elapsed = Double(truth.time.nanosecondsSince1970 - start.nanosecondsSince1970) / 1e9
    var measurement = Measurement(
      time: truth.time.time, date: truth.time.date, latitude: truth.latitude, longitude: truth.longitude,
      altitude: truth.altitude, speed: truth.speed, course: truth.course, hasFix: truth.hasFix,
      view: sky.view(at: elapsed), isWholeSecond: truth.time.nanosecondsSince1970 % 1_000_000_000 == 0)
    if let attack { under(attack, at: elapsed, truth: truth, &measurement) }
    lastView = measurement.view
    if positionNoise > 0 {
      let north = noise.nextGaussian() * positionNoise
      let east = noise.nextGaussian() * positionNoise
      measurement.latitude += north / 6_371_008.8 * 180 / .pi
      measurement.longitude += east / (6_371_008.8 * cos(truth.latitude * .pi / 180)) * 180 / .pi
    }
    switch profile.kind {
    case .ublox, .ublox8: ublox(measurement)
    case .mtk: mtk(measurement)
    case .sirf: sirf(measurement)
    case .ggaOnly: ggaOnly(measurement)
    case .marine: marine(measurement)
    case .rtk: rtk(measurement)
    }
    // A MediaTek with jamming detection on says its state after the epoch (`$PMTKSPF`).
    if let attack, profile.kind == .mtk, measurement.isWholeSecond {
      writer.begin("PMTKSPF")
      writer.integer(attack.jammingState(at: elapsed))
      writer.end()
    }
    return writer.bytes
  }

  /// What `attack` does to the epoch `elapsed` seconds into the route (see ``Attack``), and
  /// what a u-blox says of it.
  mutating func under(_ attack: Attack, at elapsed: Double, truth: RouteState, _ measurement: inout Measurement) {
    let loss = attack.signalLoss(at: elapsed)
    if loss > 0 {
      measurement.view = measurement.view.map { view in
        var view = view
        view.snr = view.snr.map { $0 - loss }.flatMap { $0 >= 25 ? $0 : nil }
        return view
      }
      if measurement.view.count(where: { $0.snr != nil }) < 4 { measurement.hasFix = false }
    }
    if let strength = attack.spoofedStrength(at: elapsed) {
      // One transmitter, one power: every tracked satellite as strong as the others.
      measurement.view = measurement.view.map { view in
        var view = view
        view.snr = view.snr.map { _ in strength + view.satellite.number % 2 }
        return view
      }
    }
    let (north, ahead) = attack.spoofedOffset(at: elapsed)
    if north > 0 || ahead > 0 {
      measurement.latitude += north / 6_371_008.8 * 180 / .pi
      let slewed = UTCTimestamp(nanosecondsSince1970: truth.time.nanosecondsSince1970 + ahead)
      (measurement.time, measurement.date) = (slewed.time, slewed.date)
    }
    let speaksUBX = profile.kind == .ublox || profile.kind == .ublox8
    lastIntegrity =
      speaksUBX && measurement.isWholeSecond
      ? IntegrityMessage.frames(
        [.hardwareMonitor, .navigationStatus], attack: attack, at: elapsed, time: truth.time, hasFix: measurement.hasFix) : []
  }

  /// The satellites used in the solution: up to twelve tracked ones of `talker`.
  func used(_ view: [Sky.View], talker: String) -> [Sky.View] {
    Array(view.filter { $0.satellite.talker == talker && $0.snr != nil }.prefix(12))
  }

  // MARK: Profiles

  mutating func ublox(_ m: Measurement) {
    let gps = used(m.view, talker: "GP"), glonass = used(m.view, talker: "GL")
    rmc("GN", m, timeDecimals: 2, coordinateDecimals: 5, speedDecimals: 3, mode: "A", navigationStatus: nil)
    vtg("GN", m)
    gga("GN", m, timeDecimals: 2, coordinateDecimals: 5, quality: 1, used: gps.count + glonass.count)
    gsa("GN", m, used: gps, systemID: 1)
    gsa("GN", m, used: glonass, systemID: 2)
    gsv("GP", m.view, signalID: 1)
    gsv("GL", m.view, signalID: 1)
    gll("GN", m, coordinateDecimals: 5, timeDecimals: 2)
  }

  mutating func mtk(_ m: Measurement) {
    let gps = used(m.view, talker: "GP"), glonass = used(m.view, talker: "GL")
    gga("GN", m, timeDecimals: 3, coordinateDecimals: 4, quality: 1, used: gps.count + glonass.count)
    gsa("GP", m, used: gps, systemID: nil)
    gsa("GL", m, used: glonass, systemID: nil)
    gsv("GP", m.view, signalID: nil)
    gsv("GL", m.view, signalID: nil)
    rmc("GN", m, timeDecimals: 3, coordinateDecimals: 4, speedDecimals: 2, mode: "A", navigationStatus: nil)
    vtg("GN", m)
    gll("GN", m, coordinateDecimals: 4, timeDecimals: 3)
  }

  mutating func sirf(_ m: Measurement) {
    let gps = used(m.view, talker: "GP")
    gga("GP", m, timeDecimals: 3, coordinateDecimals: 4, quality: 1, used: gps.count, separation: false)
    gsa("GP", m, used: gps, systemID: nil)
    gsv("GP", m.view, signalID: nil)
    rmc("GP", m, timeDecimals: 3, coordinateDecimals: 4, speedDecimals: 2, mode: nil, navigationStatus: nil)
  }

  mutating func ggaOnly(_ m: Measurement) {
    gga("GP", m, timeDecimals: 1, coordinateDecimals: 6, quality: 2, used: 9)
  }

  mutating func marine(_ m: Measurement) {
    let gps = used(m.view, talker: "GP")
    rmc("GP", m, timeDecimals: 0, coordinateDecimals: 6, speedDecimals: 1, mode: "D", navigationStatus: nil)
    gga("GP", m, timeDecimals: 0, coordinateDecimals: 6, quality: 2, used: gps.count)
    gsa("GP", m, used: gps, systemID: nil)
    gsv("GP", m.view, signalID: nil)
    // A gyro compass: the bow points a few degrees off the course over ground.
    writer.begin("HEHDT")
    writer.decimal((m.course + 3.5).truncatingRemainder(dividingBy: 360), decimals: 1)
    writer.field("T")
    writer.end()
    writer.begin("PGRME")
    writer.decimal(hdop * 2.5, decimals: 1)
    writer.field("M")
    writer.decimal(hdop * 3.5, decimals: 1)
    writer.field("M")
    writer.decimal(hdop * 4.3, decimals: 1)
    writer.field("M")
    writer.end()
  }

  mutating func rtk(_ m: Measurement) {
    let gps = used(m.view, talker: "GP"), galileo = used(m.view, talker: "GA"), beidou = used(m.view, talker: "GB")
    rmc("GN", m, timeDecimals: 2, coordinateDecimals: 7, speedDecimals: 3, mode: "R", navigationStatus: "V")
    gga("GN", m, timeDecimals: 2, coordinateDecimals: 7, quality: 4, used: gps.count + galileo.count + beidou.count)
    gsa("GN", m, used: gps, systemID: 1)
    gsa("GN", m, used: galileo, systemID: 3)
    gsa("GN", m, used: beidou, systemID: 4)
    writer.begin("GNGST")
    writer.time(m.time, decimals: 2)
    writer.decimal(0.8, decimals: 1)
    writer.decimal(0.015, decimals: 3)
    writer.decimal(0.009, decimals: 3)
    writer.decimal(41.5, decimals: 1)
    writer.decimal(0.012, decimals: 3)
    writer.decimal(0.010, decimals: 3)
    writer.decimal(0.021, decimals: 3)
    writer.end()
    if m.isWholeSecond {
      gsv("GP", m.view, signalID: 1)
      gsv("GA", m.view, signalID: 7)
      gsv("GB", m.view, signalID: 1)
    }
  }

  // MARK: Sentences

  mutating func rmc(
    _ talker: String, _ m: Measurement, timeDecimals: Int, coordinateDecimals: Int, speedDecimals: Int, mode: String?,
    navigationStatus: String?
  ) {
    writer.begin(talker + "RMC")
    writer.time(m.time, decimals: timeDecimals)
    if m.hasFix {
      writer.field("A")
      writer.latitude(m.latitude, decimals: coordinateDecimals)
      writer.longitude(m.longitude, decimals: coordinateDecimals)
      writer.decimal(m.speed / EpochAssembler.metresPerSecondPerKnot, decimals: speedDecimals)
      if m.speed > 0.3 { writer.decimal(m.course, decimals: 2) } else { writer.empty() }
    } else {
      writer.field("V")
      writer.empty(6)
    }
    writer.date(m.date)
    writer.empty(2)
    if let mode { writer.field(m.hasFix ? mode : "N") }
    if let navigationStatus { writer.field(navigationStatus) }
    writer.end()
  }

  mutating func vtg(_ talker: String, _ m: Measurement) {
    writer.begin(talker + "VTG")
    if m.hasFix {
      if m.speed > 0.3 { writer.decimal(m.course, decimals: 2) } else { writer.empty() }
      writer.field("T")
      writer.empty()
      writer.field("M")
      writer.decimal(m.speed / EpochAssembler.metresPerSecondPerKnot, decimals: 3)
      writer.field("N")
      writer.decimal(m.speed * 3.6, decimals: 3)
      writer.field("K")
      writer.field("A")
    } else {
      writer.empty(8)
      writer.field("N")
    }
    writer.end()
  }

  mutating func gga(
    _ talker: String, _ m: Measurement, timeDecimals: Int, coordinateDecimals: Int, quality: Int, used: Int,
    separation: Bool = true
  ) {
    writer.begin(talker + "GGA")
    writer.time(m.time, decimals: timeDecimals)
    guard m.hasFix else {
      writer.empty(4)
      writer.integer(0)
      writer.integer(0, width: 2)
      writer.empty(7)
      writer.end()
      return
    }
    writer.latitude(m.latitude, decimals: coordinateDecimals)
    writer.longitude(m.longitude, decimals: coordinateDecimals)
    writer.integer(quality)
    writer.integer(used, width: 2)
    writer.decimal(hdop, decimals: 2)
    writer.decimal(m.altitude, decimals: 1)
    writer.field("M")
    if separation { writer.decimal(Self.geoidSeparation, decimals: 1) } else { writer.empty() }
    writer.field("M")
    writer.empty(2)
    writer.end()
  }

  mutating func gsa(_ talker: String, _ m: Measurement, used: [Sky.View], systemID: Int?) {
    writer.begin(talker + "GSA")
    writer.field("A")
    writer.integer(m.hasFix ? 3 : 1)
    for slot in 0..<12 {
      if m.hasFix, slot < used.count { writer.integer(used[slot].satellite.number, width: 2) } else { writer.empty() }
    }
    if m.hasFix {
      writer.decimal(hdop + 0.5, decimals: 2)
      writer.decimal(hdop, decimals: 2)
      writer.decimal(hdop + 0.3, decimals: 2)
    } else {
      writer.empty(3)
    }
    if let systemID { writer.hexadecimal(systemID) }
    writer.end()
  }

  mutating func gsv(_ talker: String, _ view: [Sky.View], signalID: Int?) {
    let satellites = view.filter { $0.satellite.talker == talker }
    let total = max(1, (satellites.count + 3) / 4)
    for sentence in 0..<total {
      writer.begin(talker + "GSV")
      writer.integer(total)
      writer.integer(sentence + 1)
      writer.integer(satellites.count, width: 2)
      for satellite in satellites.dropFirst(sentence * 4).prefix(4) {
        writer.integer(satellite.satellite.number, width: 2)
        writer.integer(satellite.elevation, width: 2)
        writer.integer(satellite.azimuth, width: 3)
        if let snr = satellite.snr { writer.integer(snr, width: 2) } else { writer.empty() }
      }
      if let signalID { writer.hexadecimal(signalID) }
      writer.end()
    }
  }

  mutating func gll(_ talker: String, _ m: Measurement, coordinateDecimals: Int, timeDecimals: Int) {
    writer.begin(talker + "GLL")
    if m.hasFix {
      writer.latitude(m.latitude, decimals: coordinateDecimals)
      writer.longitude(m.longitude, decimals: coordinateDecimals)
    } else {
      writer.empty(4)
    }
    writer.time(m.time, decimals: timeDecimals)
    writer.field(m.hasFix ? "A" : "V")
    writer.field(m.hasFix ? "A" : "N")
    writer.end()
  }
}
