/// Merges the messages of each receiver epoch (one navigation solution: the GGA, RMC, GSA,
/// GSV … that share a time stamp) into one ``Fix``.
///
/// Feed every decoded message to ``add(_:)`` and drain ``nextFix()``. At end of input call
/// ``finish()`` to flush the last epoch.
///
/// ## The rule
///
/// Everything above the assembler (heading, regions, visits) trusts that a fix holds what its
/// own epoch's sentences said and nothing else, so epochs are cut by time, never by guesswork:
///
/// 1. **A timed sentence of another time closes the open epoch** (GGA, RMC, GLL, GNS, GST,
///    ZDA carry a time of day). The open epoch is emitted first, then the sentence starts the
///    next one: nothing from one time ever merges into a fix of another. "Another time" means
///    at least half an epoch interval away, the interval being learned from how often each
///    sentence type repeats; so a receiver that stamps RMC 50 ms after GGA in the same cycle
///    still makes one epoch (once its rate is known, from the second cycle on). Time going
///    backwards, as in a spliced log, is another time too, and so is any other stamp on a
///    sentence the epoch has had already (a second RMC 10 ms on is the next epoch's). Within
///    10 ms the epoch takes the stamp of its latest timed sentence, as gpsd does.
///
///    One exception keeps a burst whole when some of its sentences carry the next second: an
///    old handheld that stamps each sentence with the second it is sent in (its GLL leaves a
///    second after its RMC), or an instrument multiplexer that stamps the RMC and ZDA it adds
///    by its own clock, a second ahead. A sentence stamped one second after the open epoch, of
///    a type the epoch has not had (from any talker), that repeats the epoch's position
///    exactly, is the same fix sent again: it joins the open epoch (counted in
///    ``Counters/restampedSentences``), and so does a sentence without a position (ZDA)
///    stamped like the one that just joined; once the epoch was emitted at its learned end,
///    only if it says nothing new. A receiver's next epoch never repeats a position to the last digit while it moves,
///    so this holds only for a receiver known to move: its speed (the epoch's, else the
///    sentence's) covers two of the position's last digits in a second or, when neither
///    states a speed, its open epoch's position differs from the epoch before.
///    (A receiver standing still cannot be told from its next epoch, so nothing joins.) A
///    joined sentence's date is taken as the date of its own second, so a burst across
///    midnight keeps the right day.
/// 2. **Untimed sentences** (GSA, GSV, VTG, HDT, …) belong to the open epoch: the one of the
///    last timed sentence, as in gpsd. While no timed epoch is open (a receiver that does not
///    know the time yet sends every sentence with an empty time, for minutes), they belong to
///    no fix: they are counted in ``Counters/untimedSentences`` and dropped, except that GSV
///    still updates the sky. An untimed sentence of the type that began the open epoch means
///    the receiver has started a cycle without a time (it lost it): the open epoch ends there.
///    Nothing accumulates, so a no-fix period of any length holds no memory.
/// 3. **The end of the cycle is learned**, so a fix is emitted the moment its epoch is
///    complete rather than a whole cycle later when the next time stamp arrives. The first
///    time change teaches the *end marker*: the last sentence of the epoch it closes. From
///    then on an epoch is emitted as soon as its marker arrives, once it has had each type of
///    sentence that carries a fix (GGA, RMC, GLL, GNS) that the teaching epoch had: a receiver
///    whose cycle varies (GGA every other second, then GSA, then RMC) is not emitted at the GSA
///    that ended an RMC-only epoch, before its RMC: such an epoch is closed by the next time
///    stamp, whole, and the marker waits from then on only for the types that epoch had (a GLL
///    sent every other cycle is not waited for again). Sentences are told apart by talker, type, their order within
///    the epoch (the second `GNGSA`) and, for GSV and TXT groups, whether they end the group.
///    An epoch whose marker does not come is closed by the next time stamp; one such epoch (a
///    sentence lost to noise, an epoch with only a GLL) keeps the marker, two in a row (the
///    receiver changed its cycle) teach it again.
/// 4. **A sentence after the marker** (the epoch was already emitted): its data are merged
///    into the epoch all the same and counted in ``Counters/lateSentences``. When they change
///    what the fix says, the marker ended the cycle too early: an updated fix for the same
///    time is emitted at once (counted in ``Counters/updatedFixes``), as gpsd sends a second
///    TPV, and the next time change teaches the marker again, so this happens once per change
///    of the receiver's cycle, never as a lasting one-epoch lag. A late sentence that changes
///    nothing (a GSV sent only on whole seconds, a VTG repeating RMC's speed) teaches nothing.
///    A sentence stamped with the time of the epoch *before* the open one (a multiplexer that
///    forwards GGA a burst late, or stamps it with the last time it saw) is a straggler: it is
///    counted in ``Counters/staleSentences`` and dropped, with the untimed sentences after it
///    (rule 2 makes them its epoch's). It never reopens an epoch in the past, which would give
///    a second fix for an old time, after a newer one, holding what was said a second later.
/// 5. **End of input** (``finish()``, a capture's end, a device unplugged) emits the open
///    epoch.
///
/// Within an epoch the newest value of each field wins (see `Epoch`). Satellites in view are
/// the exception: receivers send GSV less often than fixes and the sky changes slowly, so each
/// fix carries the latest complete GSV groups, with used flags from the latest GSA.
///
/// ## Dates
///
/// From RMC or ZDA in the epoch; else the last such date, moved on a day when the time of day
/// wraps past midnight; else ``defaultDate`` (a capture's `# Date:`). With none, fixes carry a
/// time of day but no ``Fix/timestamp``.
public struct EpochAssembler: Sendable {
  /// Counts of what the assembler saw.
  public struct Counters: Hashable, Sendable, Codable {
    /// Fixes emitted, with or without a position (updates not counted again).
    public var epochs = 0
    /// Of those, fixes without a position.
    public var noFix = 0
    /// Sentences that arrived after their epoch had been emitted at its learned end.
    public var lateSentences = 0
    /// Fixes emitted again for a time already emitted, because a late sentence changed them.
    public var updatedFixes = 0
    /// Untimed sentences while no timed epoch was open (a receiver that has no time yet);
    /// they belong to no fix.
    public var untimedSentences = 0
    /// Sentences stamped with the time of the epoch before the open one, after that epoch
    /// was closed; they are dropped (rule 4).
    public var staleSentences = 0
    /// Sentences stamped a second after their burst's epoch that repeat its position: they
    /// joined it (rule 1's exception).
    public var restampedSentences = 0
    public init() {}
  }

  /// The date for streams that never send one (GGA-only receivers): a capture's `# Date:`
  /// comment, or today's date from the caller. Dates from RMC or ZDA take precedence.
  public var defaultDate: UTCDate? {
    didSet {
      if defaultDate != oldValue, !dateFromSentence { knownDate = nil }
    }
  }

  public private(set) var counters = Counters()

  /// The open epoch; `epoch.time` is `nil` while none is open.
  var epoch = Epoch()
  /// Whether the open epoch has been emitted at its end marker (and may still take late sentences).
  var emitted = false
  /// Whether a sentence after the open epoch's emission changed it: its marker came too early.
  var markerWasEarly = false
  /// Epochs in a row closed by a time change without their marker.
  var markerMisses = 0
  var cycle = CycleKeys()
  var endMarker: MessageKey?
  /// The sentence types that carry a fix (GGA, RMC, GLL, GNS) in the epoch that taught
  /// ``endMarker``: the marker ends an epoch only once it has had them too. A receiver whose
  /// cycle varies (an old handheld that sends GGA every other second, before a GSA and the RMC)
  /// would else be emitted at the GSA that ended an RMC-only epoch, before its own RMC.
  var markerFixTypes: UInt8 = 0
  /// Whether the open epoch's marker came before the fix types it waits for: the epoch is
  /// closed by the next time stamp, with whatever came after its marker, and the types it never
  /// had are not waited for again (a receiver that sends GLL every other cycle, whose teaching
  /// epoch had one). (Emitting it when the awaited type comes after the marker would be sooner;
  /// on a multiplexer that re-stamps its RMC, bundg_zeus_9 in gpsd's logs, it emitted epochs
  /// before the rest of their burst: 60 fewer of gpsd's epochs reproduced.)
  var heldAtMarker = false
  /// The time step of the time change that taught ``endMarker``, nanoseconds.
  var markerStep: Int64 = 0
  var rate = EpochRate()
  /// The time of the last epoch closed, to know its stragglers.
  var closedTime: UTCTime?
  /// Whether the last timed sentence was a straggler: the untimed ones after it are its.
  var straggling = false
  /// The stamp of the last sentence that joined the open epoch re-stamped a second ahead.
  var restampedTime: UTCTime?
  /// The position of the last epoch closed that had one.
  var closedPosition: (Coordinate, Coordinate)?

  /// When the sentence being added arrived, by the system clock, for a live source (set by
  /// ``FixDecoder``); the epoch it opens keeps it as its ``Fix/arrival``.
  package var arrival: UTCTimestamp?
  /// The same moment by the raw clock (``Fix/arrivalUptime``).
  package var arrivalUptime: Duration?

  var knownDate: UTCDate?
  var knownDateTime = UTCTime(nanosecondsSinceMidnight: 0)
  var dateFromSentence = false

  var sky = SkyView()
  var lastUsed = UsedSatellites()
  /// The satellites of the last fix made, shared with it, and what they were built from.
  var satellites: [Fix.Satellite] = []
  var satellitesBuilt: (version: Int, used: UsedSatellites)?
  var ready: [Fix] = []
  var readIndex = 0
  /// A receiver's own jamming state, as its proprietary sentence last said it (1 healthy, 2
  /// warning, 3 critical; see ``JammingSentence``), how many times it was said, and in whose.
  package internal(set) var jammingStatus: (state: Int, said: Int, maker: JammingSentence)?
  /// The antenna's state as a TXT last said it (`ANTSTATUS=`: 0 initialising, 1 not known, 2
  /// ok, 3 short, 4 open), and how many times it was said.
  package internal(set) var antennaText: (state: Int, said: Int)?

  /// Whether fixes carry the satellites in view (``Fix/satellites``). Without them GSV is
  /// still decoded and checked, but no sky is kept: less work for callers that need only
  /// positions (the location engine never reads them).
  public let keepsSatellites: Bool

  public init(defaultDate: UTCDate? = nil, keepsSatellites: Bool = true) {
    self.defaultDate = defaultDate
    self.keepsSatellites = keepsSatellites
    ready.reserveCapacity(2)
  }

  /// Takes one sentence of the stream into its epoch (rules 1, 2 and 4): `merge` applies what
  /// it says to the open epoch, when it belongs to one. Every message type comes through here.
  ///
  /// `position` is the position the sentence states, if it states one with a fix.
  @inline(__always)
  mutating func receive(
    _ base: MessageKey.Base, time stamp: UTCTime?, position: StatedPosition? = nil,
    merge: (inout Epoch) -> Void
  ) {
    var restamped = false
    if let time = stamp {
      // A marker taught by a time step that the rate now shows to be within one cycle (a
      // cycle split before the rate was known) is forgotten.
      if rate.observe(base, at: time), let interval = rate.interval, 2 * markerStep < interval { endMarker = nil }
      // A sentence the epoch has had already, stamped another time than it had however close,
      // begins the next epoch (a receiver that sends an extra cycle 10 ms before the second);
      // the same sentence again with its own stamp (a multiplexer's duplicate) does not.
      if let open = epoch.time,
        !rate.isSameEpoch(time, open) || (time != open && rate.lastStep != 0 && cycle.contains(base))
      {
        if EpochRate.step(from: open, to: time) < 0, let closed = closedTime,
          rate.isSameEpoch(time, closed)
        {
          counters.staleSentences += 1
          straggling = true
          return
        }
        // Once emitted at its learned end, it joins only if it says nothing new (else that
        // would be a second location for the same time).
        if joinsRestamped(base, at: time, after: open, stated: position),
          !emitted
            || {
              var trial = epoch; merge(&trial); return trial.saysTheSame(as: epoch)
            }()
        {
          counters.restampedSentences += 1
          restampedTime = time
          restamped = true
        } else {
          close(byTimeChange: abs(EpochRate.step(from: open, to: time)))
        }
      }
      straggling = false
      if restamped {
        // The epoch keeps its own second.
      } else if let open = epoch.time, !emitted {
        // Jitter within the burst: the epoch takes the stamp of its latest timed sentence, as
        // gpsd does (a handheld that writes GLL's time to the millisecond and GGA's and RMC's
        // to the hundredth: .303 then .30); once emitted, its time is the one it was given.
        let step = EpochRate.step(from: open, to: time)
        if step != 0, abs(step) <= EpochRate.jitter { epoch.time = time }
      } else if epoch.time == nil {
        epoch.time = time
        epoch.arrival = arrival
        epoch.arrivalUptime = arrivalUptime
        cycle.begin(with: base)
      }
    } else if epoch.time == nil {
      counters.untimedSentences += 1
      return
    } else if straggling {
      counters.staleSentences += 1
      return
    } else if base == cycle.startKey, base.type != .gsv {
      // The receiver began a new cycle without a time: the open epoch is over.
      close(byTimeChange: nil)
      counters.untimedSentences += 1
      return
    }
    // Folded to a constant in each message type's `add`, into which this is inlined.
    cycle.fixTypes |= CycleKeys.fixTypeBit(of: base.type)
    let key = cycle.record(base)
    let date = epoch.date
    if emitted {
      counters.lateSentences += 1
      let before = epoch
      merge(&epoch)
      if epoch.date != date { epoch.dateTime = stamp }
      if !epoch.saysTheSame(as: before) {
        markerWasEarly = true
        counters.updatedFixes += 1
        ready.append(makeFix())
      }
      return
    }
    merge(&epoch)
    if epoch.date != date { epoch.dateTime = stamp }
    if let key, key == endMarker {
      if cycle.fixTypes & markerFixTypes == markerFixTypes { emit() } else { heldAtMarker = true }
    }
  }

  /// Whether a sentence stamped `time`, another time than the open epoch's `open`, is part of
  /// the open epoch's burst sent a second later (rule 1's exception). It changes nothing; it is
  /// `mutating` only to be handed the assembler in place: as a plain method, called from
  /// `receive` (whose `self` is `inout`), it was handed a copy of the whole assembler (2.5 KB,
  /// and a retain of each of its arrays) at every epoch's first sentence.
  mutating func joinsRestamped(_ base: MessageKey.Base, at time: UTCTime, after open: UTCTime, stated: StatedPosition?) -> Bool {
    let second: Int64 = 1_000_000_000
    let step = EpochRate.step(from: open, to: time)
    guard abs(step - second) <= EpochRate.jitter, (rate.interval ?? .max) >= second - EpochRate.jitter,
      !cycle.contains(type: base.type)
    else { return false }
    guard let stated else { return restampedTime == time }
    let (latitude, longitude) = (stated.latitude, stated.longitude)
    guard let epochLatitude = epoch.latitude, let epochLongitude = epoch.longitude,
      latitude.saysTheSame(as: epochLatitude), longitude.saysTheSame(as: epochLongitude)
    else { return false }
    // Only a moving receiver's position tells its epochs apart: a speed (the epoch's, else
    // the sentence's) faster than two of the position's last digits a second (a digit of
    // minutes of latitude is 1852 m over ten to the number of decimals), or a position that
    // changed from the epoch before, unless a speed says it stands still (a receiver whose
    // last digit flickers at 0.0 knots: a changed position is no motion then).
    if let speed = epoch.speed?.metresPerSecond ?? stated.speed {
      let decimals = Int(min(epochLatitude.minutes.scale, epochLongitude.minutes.scale))
      if speed > 2 * 1852 / Double(FixedPoint.powersOfTenInteger[min(decimals, 8)]) { return true }
      if speed < Self.standingStill { return false }
    }
    guard let (closedLatitude, closedLongitude) = closedPosition else { return false }
    return !(closedLatitude.saysTheSame(as: epochLatitude) && closedLongitude.saysTheSame(as: epochLongitude))
  }

  /// A stated speed below which a receiver stands still, metres a second (0.1 knot and less
  /// round to 0.0 knots).
  static let standingStill = 0.06

  /// Ends the stream: emits the open epoch if it has not been yet. Adding more afterwards
  /// starts afresh, keeping what was learned about the receiver.
  public mutating func finish() {
    close(byTimeChange: nil)
  }

  /// Whether a completed fix is waiting for ``nextFix()``.
  public var hasFix: Bool { readIndex < ready.count }

  /// The next completed fix, oldest first; `nil` when none is waiting.
  public mutating func nextFix() -> Fix? {
    guard readIndex < ready.count else { return nil }
    let fix = ready[readIndex]
    readIndex += 1
    if readIndex == ready.count {
      ready.removeAll(keepingCapacity: true)
      readIndex = 0
    }
    return fix
  }

  /// Emits the open epoch at its end marker; it stays open for late sentences.
  mutating func emit() {
    let fix = makeFix()
    emitted = true
    counters.epochs += 1
    if !fix.hasPosition { counters.noFix += 1 }
    ready.append(fix)
  }

  /// Closes the open epoch: emits it unless it was emitted already and, when a time change
  /// (of `step` nanoseconds) closed it, checks the marker against it (rules 3 and 4).
  mutating func close(byTimeChange step: Int64?) {
    guard epoch.time != nil else { return }
    let closedAtMarker = emitted
    if !emitted { emit() }
    if epoch.sawGSA { lastUsed = epoch.used }
    if heldAtMarker {
      // Its marker came: a hit, with the fix types it had being all the marker waits for now.
      markerFixTypes &= cycle.fixTypes
      markerMisses = 0
      heldAtMarker = false
    } else if let step, let last = cycle.lastKey {
      var teach = false
      if closedAtMarker {
        markerMisses = 0
        teach = markerWasEarly
      } else if endMarker == nil {
        teach = true
      } else {
        markerMisses += 1
        teach = markerMisses >= 2
      }
      if teach {
        endMarker = last
        markerFixTypes = cycle.fixTypes
        markerStep = step
        markerMisses = 0
      }
    }
    closedTime = epoch.time
    if let latitude = epoch.latitude, let longitude = epoch.longitude { closedPosition = (latitude, longitude) }
    restampedTime = nil
    epoch = Epoch()
    emitted = false
    markerWasEarly = false
    cycle.reset()
  }

  mutating func resolveDate(for time: UTCTime) -> UTCDate? {
    if var date = epoch.date {
      // The date is that of its own sentence's second; the epoch's time may be across
      // midnight from it (a stamp a few milliseconds or a second apart in one burst).
      let halfDay: Int64 = 43_200_000_000_000
      let apart = time.nanosecondsSinceMidnight - (epoch.dateTime ?? time).nanosecondsSinceMidnight
      if apart < -halfDay { date = date.nextDay } else if apart > halfDay { date = date.previousDay }
      knownDate = date
      knownDateTime = time
      dateFromSentence = true
      return date
    }
    if knownDate == nil, let defaultDate {
      knownDate = defaultDate
      knownDateTime = time
      dateFromSentence = false
    }
    guard var date = knownDate else { return nil }
    // Past midnight the time of day wraps; a small step back is the receiver's, not a day.
    if time.nanosecondsSinceMidnight + 43_200_000_000_000 < knownDateTime.nanosecondsSinceMidnight {
      date = date.nextDay
    }
    knownDate = date
    knownDateTime = time
    return date
  }

  /// The open epoch as a fix. Its fields are set in a plain value, boxed once at the end (set
  /// one by one on a ``Fix``, each would ask whether its box is shared).
  mutating func makeFix() -> Fix {
    let time = epoch.time ?? UTCTime(nanosecondsSinceMidnight: 0)
    let date = resolveDate(for: time)
    var fix = Fix.Values(
      time: time, timestamp: date.map { UTCTimestamp(date: $0, time: time) }, mode: .none, quality: .invalid, satellites: [])
    fix.arrival = epoch.arrival
    fix.arrivalUptime = epoch.arrivalUptime
    let stated = epoch.statedQuality
    let hasPosition = epoch.latitude != nil && epoch.longitude != nil
    let quality = hasPosition ? (stated ?? .gps) : .invalid
    fix.quality = quality
    fix.satellitesUsed = epoch.satellitesUsed ?? (epoch.sawGSA ? epoch.used.count : nil)
    fix.pdop = epoch.pdop?.doubleValue
    fix.hdop = epoch.hdop?.doubleValue
    fix.differentialAge = epoch.differentialAge?.doubleValue
    fix.differentialStation = epoch.differentialStation
    fix.vdop = epoch.vdop?.doubleValue
    if keepsSatellites {
      // The used flags (half a kilobyte) are read only when the satellites are kept.
      let used = epoch.sawGSA ? epoch.used : lastUsed
      if satellitesBuilt?.version != sky.version || satellitesBuilt?.used != used {
        sky.satellites(used: used, into: &satellites)
        satellitesBuilt = (sky.version, used)
      }
      fix.satellites = satellites
    }
    if let gst = epoch.gst {
      fix.errorEstimate = Fix.ErrorEstimate(
        rangeRMS: gst.rangeRMS?.doubleValue, semiMajor: gst.semiMajorSigma?.doubleValue,
        semiMinor: gst.semiMinorSigma?.doubleValue, orientation: gst.orientation?.doubleValue,
        latitude: gst.latitudeSigma?.doubleValue, longitude: gst.longitudeSigma?.doubleValue,
        altitude: gst.altitudeSigma?.doubleValue)
    }
    guard quality.hasPosition, let latitude = epoch.latitude, let longitude = epoch.longitude else {
      fix.quality = .invalid
      return Fix(values: fix)
    }
    fix.latitude = latitude.degrees
    fix.longitude = longitude.degrees
    fix.altitude = epoch.altitude?.doubleValue
    fix.geoidSeparation = epoch.geoidSeparation?.doubleValue
    if let mode = epoch.gsaMode, mode != .none {
      fix.mode = mode
    } else {
      fix.mode = epoch.altitude != nil ? .threeD : .twoD
    }
    fix.speed = epoch.speed?.metresPerSecond
    fix.course = epoch.course?.doubleValue
    fix.magneticVariation = epoch.magneticVariation?.doubleValue
    fix.trueHeading = epoch.trueHeading?.doubleValue
    let uere = Self.userEquivalentRangeError(for: quality)
    if let latitudeSigma = fix.errorEstimate?.latitude, let longitudeSigma = fix.errorEstimate?.longitude {
      fix.horizontalAccuracy = (latitudeSigma * latitudeSigma + longitudeSigma * longitudeSigma).squareRoot()
    } else if let hdop = fix.hdop {
      fix.horizontalAccuracy = hdop * uere
    }
    if let altitudeSigma = fix.errorEstimate?.altitude {
      fix.verticalAccuracy = altitudeSigma
    } else if let vdop = fix.vdop, fix.mode == .threeD {
      fix.verticalAccuracy = vdop * uere
    }
    return Fix(values: fix)
  }

  /// 1852 m per nautical mile over 3600 s.
  public static let metresPerSecondPerKnot = 1852.0 / 3600.0

  /// The 1σ user-equivalent range error, metres, that turns a DOP into an accuracy when the
  /// receiver sends no GST: accuracy = DOP × UERE.
  ///
  /// Typical 1σ figures for each kind of service: about 5 m for a single-frequency
  /// autonomous fix (satellite clock and orbit, ionosphere, troposphere, multipath), about
  /// 1.5 m with differential or SBAS corrections, 0.5 m for an RTK float and 0.03 m for an
  /// RTK fixed solution. gpsd uses larger, 95% figures; these are 1σ, like GST's sigmas and
  /// like the 68% radius CoreLocation's `horizontalAccuracy` describes.
  public static func userEquivalentRangeError(for quality: FixQuality) -> Double {
    switch quality {
    case .dgps, .pps: 1.5
    case .rtkFloat: 0.5
    case .rtkFixed: 0.03
    default: 5.0
    }
  }
}

/// The position a sentence states with a fix, and its speed if it gives one (metres per
/// second), for rule 1's exception.
struct StatedPosition {
  var latitude: Coordinate
  var longitude: Coordinate
  var speed: Double?
}

/// Identifies a sentence's place in the receiver's cycle.
struct MessageKey: Hashable, Sendable {
  /// What a sentence is, without its order in the epoch.
  struct Base: Hashable, Sendable {
    var talker: Talker
    var type: SentenceType
    /// For GSV and TXT groups: the signal and whether this is the group's last sentence. For
    /// GSA: the system ID.
    var detail = 0
  }

  var base: Base
  /// How many sentences with the same base came before in this epoch.
  var occurrence: Int
}

/// The keys of the open epoch: how often each base key has occurred, and the last key, in
/// fixed storage (at most ``capacity`` distinct bases are told apart; an epoch with more
/// teaches no marker).
struct CycleKeys: Sendable {
  static let capacity = 48
  var counts: [(MessageKey.Base, Int)] = []
  /// One bit per base recorded, at a position hashed from it: a base whose bit is clear is
  /// new to the epoch without a search (most of an epoch's sentences are).
  var seen: UInt64 = 0
  var startKey: MessageKey.Base?
  var lastKey: MessageKey?
  /// One bit for each type that carries a fix (GGA, RMC, GLL, GNS) the epoch has had.
  var fixTypes: UInt8 = 0

  init() {
    counts.reserveCapacity(Self.capacity)
  }

  mutating func begin(with base: MessageKey.Base) {
    startKey = base
  }

  /// Records one more sentence of `base`; its key, or `nil` when the epoch is too varied to track.
  mutating func record(_ base: MessageKey.Base) -> MessageKey? {
    var key: MessageKey?
    let bit = Self.bit(for: base)
    let isNew = seen & bit == 0
    seen |= bit
    if !isNew, let index = index(of: base) {
      key = MessageKey(base: base, occurrence: counts[index].1)
      counts[index].1 += 1
    } else if counts.count < Self.capacity {
      key = MessageKey(base: base, occurrence: 0)
      counts.append((base, 1))
    }
    lastKey = key
    return key
  }

  /// The bit of ``fixTypes`` for a sentence of `type`: 0 for a type that carries no fix.
  @inline(__always)
  static func fixTypeBit(of type: SentenceType) -> UInt8 {
    switch type {
    case .gga: 1
    case .rmc: 2
    case .gll: 4
    case .gns: 8
    default: 0
    }
  }

  /// Whether the epoch has had a sentence of `base`.
  func contains(_ base: MessageKey.Base) -> Bool {
    seen & Self.bit(for: base) != 0 && index(of: base) != nil
  }

  /// The bit of ``seen`` for `base`.
  @inline(__always)
  static func bit(for base: MessageKey.Base) -> UInt64 {
    1 &<< ((UInt64(base.talker.rawValue) &+ base.type.rawValue &+ UInt64(bitPattern: Int64(base.detail))) % 61)
  }

  /// Whether the epoch has had a sentence of `type`, from any talker.
  func contains(type: SentenceType) -> Bool {
    var index = 0
    while index < counts.count {
      if counts[index].0.type == type { return true }
      index += 1
    }
    return false
  }

  mutating func reset() {
    counts.removeAll(keepingCapacity: true)
    seen = 0
    fixTypes = 0
    startKey = nil
    lastKey = nil
  }

  /// A plain loop: the generic `firstIndex(where:)` allocates per element in debug builds.
  private func index(of base: MessageKey.Base) -> Int? {
    var index = 0
    while index < counts.count {
      if counts[index].0 == base { return index }
      index += 1
    }
    return nil
  }
}

/// The receiver's epoch interval, learned from how often each sentence type repeats, so that
/// two sentences of one cycle stamped a few milliseconds apart are told from two epochs.
struct EpochRate: Sendable {
  static let capacity = 16
  var lastTimes: [(MessageKey.Base, Int64)] = []
  /// The shortest positive step between two sentences of the same type, nanoseconds.
  var interval: Int64?

  init() {
    lastTimes.reserveCapacity(Self.capacity)
  }

  /// The step from the previous sentence of the base last observed to it, nanoseconds; `nil`
  /// for the first of its base.
  var lastStep: Int64?

  /// Notes a sentence's time; `true` when this made the learned interval shorter.
  mutating func observe(_ base: MessageKey.Base, at time: UTCTime) -> Bool {
    let now = time.nanosecondsSinceMidnight
    var found: Int?
    var candidate = 0
    while candidate < lastTimes.count, found == nil {
      if lastTimes[candidate].0 == base { found = candidate }
      candidate += 1
    }
    lastStep = nil
    if let index = found {
      let step = now - lastTimes[index].1
      lastStep = step
      lastTimes[index].1 = now
      // A step of 0 is the same epoch; a negative one is midnight or a splice.
      if step > 0, step < interval ?? .max {
        interval = step
        return true
      }
    } else if lastTimes.count < Self.capacity {
      lastTimes.append((base, now))
    }
    return false
  }

  /// Times this close are one epoch's whatever the rate: a receiver's sentences of one burst
  /// stamped a few milliseconds apart (an old handheld's GLL at .295 s, its GGA and RMC at
  /// .30 s). Nanoseconds; gpsd draws the same line.
  static let jitter: Int64 = 10_000_000

  /// From `earlier` to `time`, nanoseconds, across midnight the short way: 23:59:59.996 to
  /// 00:00:00.002 is 6 ms, not a day back.
  static func step(from earlier: UTCTime, to time: UTCTime) -> Int64 {
    let day: Int64 = 86_400_000_000_000
    var step = time.nanosecondsSinceMidnight - earlier.nanosecondsSinceMidnight
    if step > day / 2 { step -= day } else if step <= -day / 2 { step += day }
    return step
  }

  /// Whether `time` belongs to the epoch stamped `open`: within ``jitter`` or half an
  /// interval of it.
  func isSameEpoch(_ time: UTCTime, _ open: UTCTime) -> Bool {
    let difference = abs(Self.step(from: open, to: time))
    if difference <= Self.jitter { return true }
    guard let interval else { return false }
    return 2 * difference < interval
  }
}
