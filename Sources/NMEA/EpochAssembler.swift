/// Merges the messages of each receiver epoch (one navigation solution: the GGA, RMC, GSA,
/// GSV … that share a time stamp) into one ``Fix``.
///
/// Feed every decoded message to ``add(_:)`` and drain ``nextFix()``. At end of input call
/// ``finish()`` to flush the last epoch.
///
/// **When an epoch ends.** A receiver sends its sentences in the same order every cycle, so
/// the assembler learns which sentence ends the cycle: whenever a new time stamp arrives
/// while an epoch is still open, the last sentence of that epoch becomes the *end marker*.
/// From then on a fix is emitted the moment its end marker arrives, not one cycle later
/// when the next epoch begins. Sentences are told apart by talker, type, and for repeated
/// ones by their order within the epoch (the second `GNGSA`), for GSV groups by being the
/// group's last sentence. If the marker is missing from an epoch (a sentence lost to noise,
/// a lower-rate sentence), the next time stamp closes it as before and the marker is learned
/// again; a timed sentence arriving just after its epoch was emitted also re-teaches it.
///
/// **Dates.** From RMC or ZDA in the epoch; else the last such date, moved on a day when
/// the time of day wraps past midnight; else ``defaultDate`` (a capture's `# Date:`). With
/// none, fixes carry a time of day but no ``Fix/timestamp``.
public struct EpochAssembler: Sendable {
  /// Counts of what the assembler saw.
  public struct Counters: Hashable, Sendable, Codable {
    /// Fixes emitted, with or without a position.
    public var epochs = 0
    /// Of those, fixes without a position.
    public var noFix = 0
    /// Timed sentences that arrived after their epoch had been emitted (then dropped).
    public var lateSentences = 0
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

  var epoch = Epoch()
  /// Keys of the open epoch's messages so far, in order.
  var epochKeys: [MessageKey] = []
  var endMarker: MessageKey?
  var lastEmittedTime: UTCTime?

  var knownDate: UTCDate?
  var knownDateTime = UTCTime(nanosecondsSinceMidnight: 0)
  var dateFromSentence = false

  var sky = SkyView()
  var lastUsed = UsedSatellites()
  var ready: [Fix] = []

  public init(defaultDate: UTCDate? = nil) {
    self.defaultDate = defaultDate
    epochKeys.reserveCapacity(64)
    ready.reserveCapacity(2)
  }

  /// Adds one decoded message of the stream, in the order received.
  public mutating func add(_ message: Message) {
    let time = message.time
    if let time {
      if let open = epoch.time, open != time {
        // A new time stamp: the open epoch is over, and its last sentence ends the cycle.
        endMarker = epochKeys.last
        close()
      } else if epoch.time == nil, time == lastEmittedTime {
        // Part of the epoch already emitted: the marker fired too early.
        counters.lateSentences += 1
        endMarker = key(for: message)
        return
      }
      epoch.time = time
    }
    if case .gsv(let gsv) = message { sky.add(gsv) }
    epoch.merge(message)
    let key = key(for: message)
    if epochKeys.count < 64 { epochKeys.append(key) }
    if key == endMarker, epoch.time != nil { close() }
  }

  /// Ends the stream: emits the open epoch, if it has a time.
  public mutating func finish() {
    close()
  }

  /// The next completed fix, oldest first; `nil` when none is waiting.
  public mutating func nextFix() -> Fix? {
    guard !ready.isEmpty else { return nil }
    return ready.removeFirst()
  }

  func key(for message: Message) -> MessageKey {
    var base = MessageKey(message)
    // The nth sentence with the same key in this epoch is a different key.
    base.occurrence = epochKeys.reduce(0) { count, key in
      key.talker == base.talker && key.type == base.type && key.detail == base.detail ? count + 1 : count
    }
    return base
  }

  mutating func close() {
    defer {
      epoch = Epoch()
      epochKeys.removeAll(keepingCapacity: true)
    }
    guard let time = epoch.time else { return }
    lastEmittedTime = time
    if epoch.sawGSA { lastUsed = epoch.used }
    let fix = makeFix(time: time)
    counters.epochs += 1
    if !fix.hasPosition { counters.noFix += 1 }
    ready.append(fix)
  }

  mutating func resolveDate(for time: UTCTime) -> UTCDate? {
    if let date = epoch.date {
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

  mutating func makeFix(time: UTCTime) -> Fix {
    let date = resolveDate(for: time)
    var fix = Fix(time: time, timestamp: date.map { UTCTimestamp(date: $0, time: time) })
    let stated = epoch.ggaQuality ?? epoch.gnsQuality ?? epoch.rmcQuality ?? epoch.gllQuality
    let hasPosition = epoch.latitude != nil && epoch.longitude != nil
    let quality = hasPosition ? (stated ?? .gps) : .invalid
    fix.quality = quality
    fix.satellitesUsed = epoch.satellitesUsed ?? (epoch.sawGSA ? epoch.used.count : nil)
    fix.pdop = epoch.pdop?.doubleValue
    fix.hdop = epoch.hdop?.doubleValue
    fix.vdop = epoch.vdop?.doubleValue
    fix.satellites = sky.satellites(used: lastUsed)
    if let gst = epoch.gst {
      fix.errorEstimate = Fix.ErrorEstimate(
        rangeRMS: gst.rangeRMS?.doubleValue, semiMajor: gst.semiMajorSigma?.doubleValue,
        semiMinor: gst.semiMinorSigma?.doubleValue, orientation: gst.orientation?.doubleValue,
        latitude: gst.latitudeSigma?.doubleValue, longitude: gst.longitudeSigma?.doubleValue,
        altitude: gst.altitudeSigma?.doubleValue)
    }
    guard quality.hasPosition, let latitude = epoch.latitude, let longitude = epoch.longitude else {
      fix.quality = .invalid
      return fix
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
    if let knots = epoch.speedKnots {
      fix.speed = knots.doubleValue * Self.metresPerSecondPerKnot
    } else if let kilometresPerHour = epoch.speedKilometresPerHour {
      fix.speed = kilometresPerHour.doubleValue / 3.6
    }
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
    return fix
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

/// Identifies a sentence's place in the receiver's cycle.
struct MessageKey: Hashable, Sendable {
  var talker: Talker
  var type: SentenceType
  /// For GSV and TXT groups: the signal and whether this is the group's last sentence. For
  /// GSA: the system ID.
  var detail: Int
  /// How many sentences with the same talker, type and detail came before in this epoch.
  var occurrence = 0

  init(_ message: Message) {
    talker = message.talker
    switch message {
    case .gsv(let gsv):
      type = .gsv
      detail = ((gsv.signalID ?? 0) + 1) * 2 + (gsv.isLast ? 1 : 0)
    case .txt(let txt):
      type = .txt
      detail = (txt.messageNumber ?? 1) >= (txt.messageCount ?? 1) ? 1 : 0
    case .gsa(let gsa):
      type = .gsa
      detail = gsa.systemID ?? 0
    case .unsupported(let sentence):
      type = sentence.type
      detail = 0
    default:
      type = Self.type(of: message)
      detail = 0
    }
  }

  static func type(of message: Message) -> SentenceType {
    switch message {
    case .gga: .gga
    case .rmc: .rmc
    case .gsa: .gsa
    case .gsv: .gsv
    case .vtg: .vtg
    case .gll: .gll
    case .zda: .zda
    case .gns: .gns
    case .gst: .gst
    case .hdt: .hdt
    case .ths: .ths
    case .txt: .txt
    case .unsupported(let sentence): sentence.type
    }
  }
}
