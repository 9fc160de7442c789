/// What the sentences of one epoch have said so far. Each value remembers how trustworthy its
/// source was, so that when several sentences carry it (GGA and RMC, or one GGA per
/// constellation) the combined (`GN`) and fuller sentence wins regardless of order.
struct Epoch: Sendable {
  var time: UTCTime?
  var date: UTCDate?

  var latitude: Coordinate?
  var longitude: Coordinate?
  var positionRank = -1
  var altitude: FixedPoint?
  var geoidSeparation: FixedPoint?
  var altitudeRank = -1

  var ggaQuality: FixQuality?
  var gnsQuality: FixQuality?
  var rmcQuality: FixQuality?
  var gllQuality: FixQuality?

  var speedKnots: FixedPoint?
  var speedKilometresPerHour: FixedPoint?
  var course: FixedPoint?
  var magneticVariation: FixedPoint?
  var trueHeading: FixedPoint?

  var satellitesUsed: Int?
  var satellitesUsedRank = -1
  var gsaMode: FixMode?
  var pdop: FixedPoint?
  var hdop: FixedPoint?
  var vdop: FixedPoint?
  var sawGSA = false
  /// Used satellites per constellation; index `Constellation.allCases.count` holds those whose
  /// constellation is unknown.
  var used = UsedSatellites()
  var gst: GST?

  var isEmpty: Bool { time == nil && !sawGSA && latitude == nil }

  static func rank(_ talker: Talker, _ base: Int) -> Int {
    talker == .combined ? base + 10 : base
  }

  mutating func setPosition(_ latitude: Coordinate?, _ longitude: Coordinate?, rank: Int) {
    guard let latitude, let longitude, rank > positionRank else { return }
    self.latitude = latitude
    self.longitude = longitude
    positionRank = rank
  }

  mutating func setAltitude(_ altitude: FixedPoint?, _ separation: FixedPoint?, rank: Int) {
    guard altitude != nil || separation != nil, rank > altitudeRank else { return }
    self.altitude = altitude
    self.geoidSeparation = separation
    altitudeRank = rank
  }

  mutating func setSatellitesUsed(_ count: Int?, rank: Int) {
    guard let count, rank > satellitesUsedRank else { return }
    satellitesUsed = count
    satellitesUsedRank = rank
  }

  mutating func merge(_ message: Message) {
    switch message {
    case .gga(let gga):
      let rank = Self.rank(gga.talker, 3)
      setPosition(gga.latitude, gga.longitude, rank: rank)
      setAltitude(gga.altitude, gga.geoidSeparation, rank: rank)
      setSatellitesUsed(gga.satellitesUsed, rank: rank)
      if ggaQuality == nil || gga.talker == .combined { ggaQuality = gga.quality ?? ggaQuality }
      if hdop == nil { hdop = gga.hdop }
    case .gns(let gns):
      let rank = Self.rank(gns.talker, 3)
      setPosition(gns.latitude, gns.longitude, rank: rank)
      setAltitude(gns.altitude, gns.geoidSeparation, rank: rank)
      setSatellitesUsed(gns.satellitesUsed, rank: rank)
      if gnsQuality == nil || gns.talker == .combined { gnsQuality = gns.mode ?? gnsQuality }
      if hdop == nil { hdop = gns.hdop }
    case .rmc(let rmc):
      setPosition(rmc.latitude, rmc.longitude, rank: Self.rank(rmc.talker, 2))
      let quality: FixQuality? = rmc.isValid == false ? .invalid : (rmc.mode ?? (rmc.isValid == true ? .gps : nil))
      if rmcQuality == nil || rmc.talker == .combined { rmcQuality = quality ?? rmcQuality }
      if speedKnots == nil { speedKnots = rmc.speedKnots }
      if course == nil { course = rmc.course }
      if magneticVariation == nil { magneticVariation = rmc.magneticVariation }
      if let rmcDate = rmc.date { date = rmcDate }
    case .gll(let gll):
      setPosition(gll.latitude, gll.longitude, rank: Self.rank(gll.talker, 1))
      let quality: FixQuality? = gll.isValid == false ? .invalid : (gll.mode ?? (gll.isValid == true ? .gps : nil))
      if gllQuality == nil { gllQuality = quality }
    case .vtg(let vtg):
      if course == nil { course = vtg.course }
      if speedKnots == nil { speedKnots = vtg.speedKnots }
      if speedKilometresPerHour == nil { speedKilometresPerHour = vtg.speedKilometresPerHour }
    case .gsa(let gsa):
      sawGSA = true
      if let mode = gsa.fixMode { gsaMode = max(gsaMode ?? .none, mode) }
      if pdop == nil || gsa.pdop != nil && gsa.talker == .combined { pdop = gsa.pdop ?? pdop }
      if let gsaHDOP = gsa.hdop { hdop = gsaHDOP }
      if vdop == nil { vdop = gsa.vdop }
      used.insert(gsa.satellites, constellation: gsa.constellation)
    case .zda(let zda):
      if let zdaDate = zda.date { date = zdaDate }
    case .gst(let gstMessage):
      gst = gstMessage
    case .hdt(let hdt):
      if let heading = hdt.heading { trueHeading = heading }
    case .ths(let ths):
      if ths.isValid { trueHeading = ths.heading }
    case .gsv, .txt, .unsupported:
      break
    }
  }
}

/// The satellites GSA lists as used, one fixed bit set per constellation and one for
/// satellites of no known constellation, stored inline so an epoch allocates nothing.
struct UsedSatellites: Sendable, Hashable {
  static let slots = Constellation.allCases.count + 1
  private var sets = (
    SatelliteNumbers(), SatelliteNumbers(), SatelliteNumbers(), SatelliteNumbers(),
    SatelliteNumbers(), SatelliteNumbers(), SatelliteNumbers(), SatelliteNumbers()
  )

  static func slot(_ constellation: Constellation?) -> Int {
    switch constellation {
    case nil: 7
    case .gps: 0
    case .sbas: 1
    case .glonass: 2
    case .galileo: 3
    case .beidou: 4
    case .qzss: 5
    case .navic: 6
    }
  }

  private func set(_ slot: Int) -> SatelliteNumbers {
    withUnsafeBytes(of: sets) { $0.load(fromByteOffset: slot * MemoryLayout<SatelliteNumbers>.stride, as: SatelliteNumbers.self) }
  }

  private mutating func insert(_ number: Int, slot: Int) {
    withUnsafeMutableBytes(of: &sets) { raw in
      raw.baseAddress!.advanced(by: slot * MemoryLayout<SatelliteNumbers>.stride)
        .assumingMemoryBound(to: SatelliteNumbers.self).pointee.insert(number)
    }
  }

  mutating func insert(_ numbers: SatelliteNumbers, constellation: Constellation?) {
    for number in numbers {
      // Combined sentences without a system ID say which system only through the number's
      // range, and a GPS sentence can list SBAS satellites by their own numbers.
      let byNumber = Constellation(nmeaPRN: number)
      let target = constellation == .gps && byNumber == .sbas ? .sbas : (constellation ?? byNumber)
      insert(number, slot: Self.slot(target))
    }
  }

  var count: Int { (0..<Self.slots).reduce(0) { $0 + set($1).count } }

  func contains(_ number: Int, constellation: Constellation?) -> Bool {
    set(Self.slot(constellation)).contains(number) || set(Self.slot(nil)).contains(number)
  }

  static func == (lhs: UsedSatellites, rhs: UsedSatellites) -> Bool {
    (0..<slots).allSatisfy { lhs.set($0) == rhs.set($0) }
  }

  func hash(into hasher: inout Hasher) {
    for slot in 0..<Self.slots { hasher.combine(set(slot)) }
  }
}
