/// What the sentences of one epoch have said so far.
///
/// **The newest value wins**, as in gpsd: when several sentences of the epoch carry the same
/// value (GGA, RMC and GLL each carry the position; RMC and VTG the speed and course), the
/// last one received is kept, and an empty field never erases an earlier value. Marine
/// gateways and NMEA 2000 bridges sample each sentence's position at a slightly different
/// instant; the last is the freshest. Two refinements:
/// - A position that is an earlier one of the same epoch rounded (or cut) to fewer decimals
///   (GGA `2037.72792` then RMC `2037.7279`) does not replace it: it says nothing new and
///   would only lose precision.
/// - A combined solution (talker `GN`) is not replaced by a single constellation's (`GP`,
///   `GL`, …) when a receiver sends both: the combined one uses every satellite.
///
/// A sentence that says it has no fix (GGA quality 0, RMC or GLL status `V`, GNS mode `N`)
/// contributes no position, since receivers repeat their last position in such sentences.
struct Epoch: Sendable {
  var time: UTCTime?
  /// When the first sentence of the epoch arrived, by the system clock (live sources only).
  var arrival: UTCTimestamp?
  /// The same moment by the raw clock.
  var arrivalUptime: Duration?
  var date: UTCDate?
  /// The time of day of the sentence that gave ``date``.
  var dateTime: UTCTime?

  var latitude: Coordinate?
  var longitude: Coordinate?
  var positionIsCombined = false
  var altitude: FixedPoint?
  var geoidSeparation: FixedPoint?
  var altitudeIsCombined = false

  var ggaQuality: FixQuality?
  var gnsQuality: FixQuality?
  var rmcQuality: FixQuality?
  var gllQuality: FixQuality?

  /// Speed over ground in metres per second, from the last sentence that gave one.
  var speed: Speed?
  var course: FixedPoint?
  var magneticVariation: FixedPoint?
  var trueHeading: FixedPoint?

  var satellitesUsed: Int?
  var satellitesUsedIsCombined = false
  var gsaMode: FixMode?
  var pdop: FixedPoint?
  var hdop: FixedPoint?
  /// GGA's age of the differential corrections (seconds) and its reference station.
  var differentialAge: FixedPoint?
  var differentialStation: Int?
  var vdop: FixedPoint?
  var sawGSA = false
  /// Used satellites per constellation; index `Constellation.allCases.count` holds those whose
  /// constellation is unknown.
  var used = UsedSatellites()
  var gst: GST?

  /// A speed as the sentence wrote it, in knots or kilometres per hour.
  enum Speed: Sendable, Equatable {
    case knots(FixedPoint)
    case kilometresPerHour(FixedPoint)

    var metresPerSecond: Double {
      switch self {
      case .knots(let value): value.doubleValue * EpochAssembler.metresPerSecondPerKnot
      case .kilometresPerHour(let value): value.doubleValue / 3.6
      }
    }
  }

  /// Keeps a value unless a combined solution already gave one and this one is not combined.
  static func replaces(_ isCombined: Bool, over existingIsCombined: Bool) -> Bool {
    isCombined || !existingIsCombined
  }

  mutating func setPosition(_ latitude: Coordinate?, _ longitude: Coordinate?, talker: Talker) {
    guard let latitude, let longitude else { return }
    let isCombined = talker == .combined
    if let oldLatitude = self.latitude, let oldLongitude = self.longitude {
      guard Self.replaces(isCombined, over: positionIsCombined) else { return }
      if latitude.isRounding(of: oldLatitude), longitude.isRounding(of: oldLongitude) { return }
    }
    self.latitude = latitude
    self.longitude = longitude
    positionIsCombined = isCombined
  }

  mutating func setAltitude(_ altitude: FixedPoint?, _ separation: FixedPoint?, talker: Talker) {
    guard altitude != nil || separation != nil else { return }
    let isCombined = talker == .combined
    guard self.altitude == nil && geoidSeparation == nil || Self.replaces(isCombined, over: altitudeIsCombined) else { return }
    self.altitude = altitude ?? self.altitude
    self.geoidSeparation = separation ?? geoidSeparation
    altitudeIsCombined = isCombined
  }

  mutating func setSatellitesUsed(_ count: Int?, talker: Talker) {
    guard let count else { return }
    let isCombined = talker == .combined
    guard satellitesUsed == nil || Self.replaces(isCombined, over: satellitesUsedIsCombined) else { return }
    satellitesUsed = count
    satellitesUsedIsCombined = isCombined
  }

  mutating func merge(_ gga: GGA) {
    if gga.quality != .invalid {
      setPosition(gga.latitude, gga.longitude, talker: gga.talker)
      setAltitude(gga.altitude, gga.geoidSeparation, talker: gga.talker)
    }
    setSatellitesUsed(gga.satellitesUsed, talker: gga.talker)
    if ggaQuality == nil || gga.talker == .combined { ggaQuality = gga.quality ?? ggaQuality }
    hdop = gga.hdop ?? hdop
    // Both or neither, and not both zero (what receivers without corrections fill in), as
    // gpsd takes them.
    if let age = gga.differentialAge, let station = gga.differentialStation, age.doubleValue > 0.09 || station > 0 {
      differentialAge = age
      differentialStation = station
    }
  }

  mutating func merge(_ gns: GNS) {
    if gns.mode != .invalid {
      setPosition(gns.latitude, gns.longitude, talker: gns.talker)
      setAltitude(gns.altitude, gns.geoidSeparation, talker: gns.talker)
    }
    setSatellitesUsed(gns.satellitesUsed, talker: gns.talker)
    if gnsQuality == nil || gns.talker == .combined { gnsQuality = gns.mode ?? gnsQuality }
    hdop = gns.hdop ?? hdop
  }

  mutating func merge(_ rmc: RMC) {
    let quality: FixQuality? = rmc.isValid == false ? .invalid : (rmc.mode ?? (rmc.isValid == true ? .gps : nil))
    if quality != .invalid { setPosition(rmc.latitude, rmc.longitude, talker: rmc.talker) }
    if rmcQuality == nil || rmc.talker == .combined { rmcQuality = quality ?? rmcQuality }
    if let knots = rmc.speedKnots { speed = .knots(knots) }
    course = rmc.course ?? course
    magneticVariation = rmc.magneticVariation ?? magneticVariation
    date = rmc.date ?? date
  }

  mutating func merge(_ gll: GLL) {
    let quality: FixQuality? = gll.isValid == false ? .invalid : (gll.mode ?? (gll.isValid == true ? .gps : nil))
    if quality != .invalid { setPosition(gll.latitude, gll.longitude, talker: gll.talker) }
    if gllQuality == nil { gllQuality = quality }
  }

  mutating func merge(_ vtg: VTG) {
    course = vtg.course ?? course
    if let knots = vtg.speedKnots {
      speed = .knots(knots)
    } else if let kilometresPerHour = vtg.speedKilometresPerHour {
      speed = .kilometresPerHour(kilometresPerHour)
    }
  }

  mutating func merge(_ gsa: GSA) {
    sawGSA = true
    if let mode = gsa.fixMode { gsaMode = max(gsaMode ?? .none, mode) }
    pdop = gsa.pdop ?? pdop
    hdop = gsa.hdop ?? hdop
    vdop = gsa.vdop ?? vdop
    used.insert(gsa.satellites, constellation: gsa.constellation)
  }
}

extension Epoch {
  /// Whether a fix made from this epoch would say what one made from `other` says: the same
  /// position, motion, quality, dimension, dilutions and error estimates. (Which sentence
  /// said it, and the used satellites' flags in the sky view, do not count.)
  func saysTheSame(as other: Epoch) -> Bool {
    latitude == other.latitude && longitude == other.longitude && altitude == other.altitude
      && geoidSeparation == other.geoidSeparation && statedQuality == other.statedQuality
      && speed == other.speed && course == other.course && magneticVariation == other.magneticVariation
      && trueHeading == other.trueHeading && satellitesUsed == other.satellitesUsed && gsaMode == other.gsaMode
      && pdop == other.pdop && hdop == other.hdop && differentialAge == other.differentialAge
      && differentialStation == other.differentialStation && vdop == other.vdop && gst == other.gst && date == other.date
  }

  /// The fix quality the sentences state, the fullest source first: GGA, GNS, RMC, GLL.
  var statedQuality: FixQuality? { ggaQuality ?? gnsQuality ?? rmcQuality ?? gllQuality }
}

extension Coordinate {
  /// Whether two coordinates say the same, to the digits the coarser one has.
  func saysTheSame(as other: Coordinate) -> Bool {
    self == other || isRounding(of: other) || other.isRounding(of: self)
  }

  /// Whether this is `precise` written with fewer decimals of minutes, rounded or cut.
  func isRounding(of precise: Coordinate) -> Bool {
    guard minutes.scale < precise.minutes.scale, isNegative == precise.isNegative else { return false }
    let drop = FixedPoint.powersOfTenInteger[Int(precise.minutes.scale - minutes.scale)]
    // Both as minutes since the start of the degree, at the precise scale.
    let coarse = (Int64(wholeDegrees) * 60 * FixedPoint.powersOfTenInteger[Int(minutes.scale)] + minutes.mantissa) * drop
    let fine = Int64(precise.wholeDegrees) * 60 * FixedPoint.powersOfTenInteger[Int(precise.minutes.scale)] + precise.minutes.mantissa
    let difference = fine - coarse
    // Cut: fine lies in [coarse, coarse + drop). Rounded: in [coarse - drop/2, coarse + drop/2].
    return (difference >= 0 && difference < drop) || 2 * abs(difference) <= drop
  }
}

/// The satellites GSA lists as used, one fixed bit set per constellation and one for
/// satellites of no known constellation, stored inline so an epoch allocates nothing.
struct UsedSatellites: Sendable, Hashable {
  /// By ``slot(_:)``.
  private var sets = InlineArray<8, SatelliteNumbers>(repeating: SatelliteNumbers())

  private static func slot(_ constellation: Constellation?) -> Int {
    switch constellation {
    case .gps: 0
    case .sbas: 1
    case .glonass: 2
    case .galileo: 3
    case .beidou: 4
    case .qzss: 5
    case .navic: 6
    case nil: 7
    }
  }

  private mutating func insert(_ numbers: SatelliteNumbers, into constellation: Constellation?) {
    sets[Self.slot(constellation)].formUnion(numbers)
  }

  /// Sorts a sentence's numbers into constellations a whole set at a time.
  mutating func insert(_ numbers: SatelliteNumbers, constellation: Constellation?) {
    switch constellation {
    case .gps:
      // A GPS sentence can list SBAS satellites by their own numbers.
      let sbasNumbers = SatelliteNumbers.nmeaSBASNumbers
      insert(numbers.intersection(sbasNumbers), into: .sbas)
      insert(numbers.subtracting(sbasNumbers), into: .gps)
    case let constellation?:
      insert(numbers, into: constellation)
    case nil:
      // Combined sentences without a system ID say which system only through the number's range.
      var rest = numbers
      for (constellation, range) in SatelliteNumbers.nmeaNumbers where !rest.isEmpty {
        insert(rest.intersection(range), into: constellation)
        rest = rest.subtracting(range)
      }
      insert(rest, into: nil)
    }
  }

  var count: Int {
    var total = 0
    for index in sets.indices { total += sets[index].count }
    return total
  }

  func contains(_ number: Int, constellation: Constellation?) -> Bool {
    sets[Self.slot(constellation)].contains(number) || sets[Self.slot(nil)].contains(number)
  }

  static func == (left: UsedSatellites, right: UsedSatellites) -> Bool {
    for index in left.sets.indices where left.sets[index] != right.sets[index] { return false }
    return true
  }

  func hash(into hasher: inout Hasher) {
    for index in sets.indices { hasher.combine(sets[index]) }
  }
}
