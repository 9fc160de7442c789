import Framing
import NMEA

/// One receiver's bytes made into sentences and fixes, once, and published to its
/// ``Receiver``'s listeners: the one place a source's NMEA is decoded, whether it came from a
/// serial port, a capture or a simulator (`check` reads captures through it too).
///
/// Live sources ``take(_:for:)`` bytes as they arrive: everything they complete goes out at
/// once. A replay paces its fixes, so it asks for them one at a time (``nextFix(for:)``)
/// and releases each, with the sentences and bytes that made it, when its time has come
/// (``release(_:for:)``).
package struct Pipeline: Sendable {
  package private(set) var decoder: FixDecoder
  /// Takes the binary protocols' frames out before the NMEA framer (the last stage) sees the bytes.
  package private(set) var splitter = StreamSplitter()
  /// A u-blox's UBX navigation made into fixes: for a receiver that sends no NMEA.
  private var ubx = UBXEpochAssembler()
  /// What the receiver says of jamming, spoofing and its antenna: kept across resets (a rate
  /// switch does not change the sky).
  private var integrity = SignalIntegrity()
  /// gpsbridge's own evidence of spoofing, for a receiver that says nothing of it: the rules,
  /// what they find now, and whether that changed since it was last said.
  private var heuristics = SignalHeuristics()
  private var suspicion: SignalIntegrity.Source?
  /// How many of the receiver's proprietary jamming sentences were taken.
  private var jammingStatusSaid = 0
  private var antennaTextSaid = 0
  private var suspicionChanged = false
  /// The receiver's own word as last said, and what was said with the rules' finding on top.
  private var said = SignalIntegrity()
  private var saidWithSuspicion = SignalIntegrity()
  /// Its changes not yet said, each where it was read: after `text` bytes of NMEA and `ubx`
  /// UBX epochs. One goes out just before the first fix made beyond it (an NMEA fix whose
  /// sentences lie past it, a UBX epoch made after it), live and in a replay alike, so a state
  /// said between two epochs holds from the second. (Until the end of the receiver's cycle is
  /// learned, an NMEA epoch is closed by the next one's first sentence, and the change goes
  /// out one fix early.) Live, what is left once the read's fixes are out is said at once.
  private var pendingIntegrity: [(text: Int, ubx: Int, state: SignalIntegrity)] = []
  /// NMEA text bytes handed to the decoder so far.
  private var textTaken = 0
  /// UBX epochs taken from the assembler so far, and the one about to go out (`nil` when the
  /// fix about to go out is an NMEA one).
  private var ubxTaken = 0
  private var releasingUBXEpoch: Int?
  /// UBX epochs since the last NMEA fix: a receiver that sends both gives its fixes once, by
  /// its NMEA; UBX fixes go out from the second UBX epoch without NMEA on.
  private var ubxEpochsWithoutNMEA = 0
  private let defaultDate: UTCDate?
  private let keepsSatellites: Bool
  /// Whether the bytes taken are the receiver's (not a wrong baud rate's noise), so are
  /// published, and its rejects counted aloud. A fix proves it: unsettled input that makes a
  /// fix is settled at once, and ``settledNotice`` said, before the fix goes out.
  package var isSettled = true
  /// What to tell listeners when a fix settles the input ("NMEA at 9600 baud").
  package var settledNotice: String?
  /// The line speed the input settles at, said (``ReceiverEvent/lineSpeed(_:)``) with the
  /// notice, before the fix that settled it.
  package var settledLineSpeed: Int?
  private var lastRejected = 0
  /// Fixes in a row with a position but no date, until ``undatedNotice`` has been said.
  private var undatedFixes = 0
  /// For a paced replay: the sentences of the fix not yet released, and the bytes read and
  /// not yet released (only while someone wants them).
  private var heldSentences: [[UInt8]] = []
  private var heldBytes: [UInt8] = []
  private var heldFrames: [ProtocolFrame] = []
  private var appended = 0
  private var released = 0
  /// Bytes taken live, and what was counted before the last ``reset()``.
  private var taken = 0
  private var earlier = ReceiverTally()

  /// - Parameters:
  ///   - defaultDate: the date for streams that never send one (a capture's `# Date:`
  ///     comment overrides it).
  ///   - keepsSatellites: whether fixes carry the satellites in view.
  ///   - countsSentences: keep a tally of the sentences by talker and type (for `check`).
  package init(defaultDate: UTCDate? = nil, keepsSatellites: Bool = false, countsSentences: Bool = false) {
    self.defaultDate = defaultDate
    self.keepsSatellites = keepsSatellites
    decoder = FixDecoder(defaultDate: defaultDate, countsSentences: countsSentences, keepsSatellites: keepsSatellites)
  }

  /// The pipeline for `receiver`'s listeners as they are now. No date is given: a stream's
  /// fixes are dated by its own RMC or ZDA, or a capture's `# Date:`, never by this machine.
  package init(for receiver: Receiver) {
    self.init(keepsSatellites: receiver.interests.contains(.satellites))
  }

  /// Starts afresh (after a baud change), forgetting what was read and counted.
  package mutating func reset() {
    earlier = tally
    taken = 0
    decoder = FixDecoder(defaultDate: defaultDate, keepsSatellites: keepsSatellites)
    splitter = StreamSplitter()
    ubx = UBXEpochAssembler()
    lastRejected = 0
  }

  // MARK: Live

  /// Decodes `bytes` and publishes them, each sentence and each fix they complete.
  /// `arrival` is when they were read, by the system clock (see ``Fix/arrival``), and `uptime`
  /// the same moment by the boot clock (``Fix/arrivalUptime``).
  package mutating func take(
    _ bytes: UnsafeRawBufferPointer, arrivedAt arrival: UTCTimestamp? = nil, uptime: Duration? = nil, for receiver: Receiver
  ) {
    let interests = receiver.interests
    taken += bytes.count
    if isSettled, interests.contains(.bytes) { receiver.publish(.bytes(Array(bytes))) }
    // The splitter is taken out while it runs, so its callbacks may feed the decoder in place.
    var splitter = self.splitter
    let publishesFrames = isSettled && interests.contains(.frames)
    splitter.split(
      bytes,
      text: { text in
        self.textTaken += text.count
        if let arrival { self.decoder.append(text, arrivedAt: arrival, uptime: uptime) } else { self.decoder.append(text) }
      },
      frame: { frame in
        if case .ubx(let packet) = frame { self.take(packet) }
        if publishesFrames { receiver.publish(.frame(frame)) }
      })
    self.splitter = splitter
    publishAvailable(for: receiver, interests)
    receiver.record(tally)
    receiver.publish(.flush)
  }

  /// The input ended (the device went away): its last epoch is complete, as at the end of a capture.
  package mutating func finish(for receiver: Receiver) {
    var splitter = self.splitter
    splitter.finish { text in
      self.textTaken += text.count
      self.decoder.append(text)
    }
    self.splitter = splitter
    decoder.finish()
    ubx.finish()
    publishAvailable(for: receiver, receiver.interests)
    receiver.publish(.flush)
  }

  private mutating func publishAvailable(for receiver: Receiver, _ interests: Receiver.Interests) {
    if isSettled, interests.contains(.sentences) {
      while let fix = decoder.next(onSentence: { receiver.publish(.sentence(Array($0.bytes))) }) {
        ubxEpochsWithoutNMEA = 0
        releasingUBXEpoch = nil
        publish(fix, for: receiver)
      }
    } else {
      while let fix = decoder.next() {
        ubxEpochsWithoutNMEA = 0
        releasingUBXEpoch = nil
        settle(for: receiver)
        publish(fix, for: receiver)
      }
    }
    while let fix = nextUBXFix() {
      settle(for: receiver)
      publish(fix, for: receiver)
    }
    // Said after the last complete epoch: the next fix is made under it, and a time service
    // hears it now.
    releaseAllIntegrity(for: receiver)
    publishRejects(for: receiver)
  }

  /// What a live receiver is told when its fixes stay undated: they give no locations, and
  /// the system's date is never put on them.
  static let undatedNotice =
    "the receiver's fixes have no date (it sends no RMC or ZDA), so they give no locations and no time: "
    + "the system's date is never used. Turn on RMC or ZDA in the receiver's settings."

  private mutating func publish(_ fix: Fix, for receiver: Receiver) {
    judge(fix)
    releaseIntegrity(for: receiver)
    if undatedFixes >= 0, fix.hasPosition {
      undatedFixes = fix.timestamp == nil ? undatedFixes + 1 : 0
      // Three in a row: not just a receiver first heard mid-burst.
      if undatedFixes == 3 {
        receiver.publish(.notice(Self.undatedNotice))
        undatedFixes = -1
      }
    }
    receiver.publish(.fix(fix))
  }

  /// Takes the input as the receiver's from now on, saying so once.
  package mutating func settle(for receiver: Receiver) {
    guard !isSettled else { return }
    isSettled = true
    if let notice = settledNotice { receiver.publish(.notice(notice)) }
    if let rate = settledLineSpeed { receiver.publish(.lineSpeed(rate)) }
    settledNotice = nil
    settledLineSpeed = nil
  }

  // MARK: Paced

  /// Adds bytes read from a capture, to be released with the fixes they make. All-NMEA bytes
  /// (no binary frame can start in them) go to the decoder as they are. With `holdingAll`
  /// (a paced replay, whose piece may last minutes) the bytes and frames are held whether or
  /// not anyone wants them now, and given at release to whoever wants them then: a client
  /// that starts watching them mid-piece gets them from the next epoch on.
  package mutating func append(_ bytes: UnsafeRawBufferPointer, for receiver: some ReceiverEventSink, holdingAll: Bool = false) {
    var interests = receiver.interests
    if holdingAll { interests.formUnion([.bytes, .frames]) }
    if interests.contains(.bytes) { heldBytes.append(contentsOf: bytes) }
    appended += bytes.count
    guard splitter.mayHoldFrames(bytes) else {
      textTaken += bytes.count
      return decoder.append(bytes)
    }
    var splitter = self.splitter
    splitter.split(
      bytes,
      text: { text in
        self.textTaken += text.count
        self.decoder.append(text)
      },
      frame: { frame in
        if case .ubx(let packet) = frame { self.take(packet) }
        if interests.contains(.frames) { self.heldFrames.append(frame) }
      })
    self.splitter = splitter
  }

  /// The end of a capture: its last epoch is complete.
  package mutating func finishAppending() {
    var splitter = self.splitter
    splitter.finish { text in
      self.textTaken += text.count
      self.decoder.append(text)
    }
    self.splitter = splitter
    decoder.finish()
    ubx.finish()
  }

  /// The next fix the bytes so far complete, its sentences held until ``release(_:for:)``
  /// when `keepingSentences` (someone listens for them).
  package mutating func nextFix(keepingSentences: Bool) -> Fix? {
    let fix = keepingSentences ? decoder.next { heldSentences.append(Array($0.bytes)) } : decoder.next()
    if let fix {
      ubxEpochsWithoutNMEA = 0
      releasingUBXEpoch = nil
      judge(fix)
      return fix
    }
    guard let fix = nextUBXFix() else { return nil }
    judge(fix)
    return fix
  }

  /// gpsbridge's own evidence of spoofing (``SignalHeuristics``) from `fix` and those before
  /// it: a change is said with the integrity changes released just before `fix` (it holds for
  /// `fix` itself: a time service never feeds the epoch that showed it).
  private mutating func judge(_ fix: Fix) {
    // A receiver's jamming state in a maker's sentence (``JammingSentence``), or its antenna's
    // in a TXT, is read before this fix was made: said with the changes before it.
    // Read from the assembler's stored properties: through a getter of `FixDecoder` (another
    // module's), the whole decoder, nearly 3 KB, was copied twice an epoch to call it.
    if let status = decoder.assembler.jammingStatus, status.said != jammingStatusSaid {
      jammingStatusSaid = status.said
      let source: SignalIntegrity.Source =
        switch status.maker {
        case .mediatek: .mediatekJamming
        case .quectel: .quectelJamming
        case .airoha: .airohaJamming
        }
      note { $0.take(jamming: status.state, from: source) }
    }
    if let text = decoder.assembler.antennaText, text.said != antennaTextSaid {
      antennaTextSaid = text.said
      note { $0.take(antennaText: text.state) }
    }
    let found = heuristics.take(fix)
    guard found != suspicion else { return }
    suspicion = found
    suspicionChanged = true
  }

  /// Takes a change a receiver's NMEA said into the integrity state and into what was said, to
  /// be said before the next fix when it changed anything.
  private mutating func note(_ change: (inout SignalIntegrity) -> Bool) {
    guard change(&integrity) else { return }
    _ = change(&said)
    suspicionChanged = true
  }

  /// Says `state` (the receiver's own word) with the rules' finding on top (it counts only while
  /// the receiver says nothing of spoofing itself), unless that is what was said last.
  private mutating func say(_ state: SignalIntegrity, for receiver: some ReceiverEventSink) {
    said = state
    var combined = state
    _ = combined.suspectSpoofing(suspicion)
    guard combined != saidWithSuspicion else { return }
    saidWithSuspicion = combined
    receiver.publish(.integrity(combined))
  }

  /// The next fix of a receiver's UBX navigation, while it sends no NMEA fixes.
  private mutating func nextUBXFix() -> Fix? {
    while let fix = ubx.next() {
      ubxTaken += 1
      ubxEpochsWithoutNMEA += 1
      releasingUBXEpoch = ubxTaken - 1
      if ubxEpochsWithoutNMEA > 1 { return fix }
    }
    return nil
  }

  /// Publishes the bytes read up to `fix`, its sentences, and `fix`.
  package mutating func release(_ fix: consuming Fix, for receiver: some ReceiverEventSink) {
    releaseHeld(for: receiver)
    releaseIntegrity(for: receiver)
    receiver.publish(.fix(fix))
    publishRejects(for: receiver)
  }

  /// Publishes the bytes and frames held up to what the decoders have taken: with a fix made
  /// of them (``release(_:for:)``), or, for a capture without NMEA, before each of its fixes.
  package mutating func releaseHeld(for receiver: some ReceiverEventSink) {
    releaseHeld(through: appended - decoder.framer.bufferedByteCount - splitter.pendingByteCount, for: receiver)
  }

  /// Publishes what is left at the end of a capture.
  package mutating func releaseRest(for receiver: some ReceiverEventSink) {
    releaseHeld(through: appended, for: receiver)
    releaseAllIntegrity(for: receiver)
    publishRejects(for: receiver)
  }

  /// One UBX frame: to the navigation assembler, and to the integrity state (a change is
  /// noted where it was read).
  private mutating func take(_ packet: UBXFrame) {
    ubx.take(packet)
    if integrity.take(packet) { pendingIntegrity.append((textTaken, ubx.made, integrity)) }
  }

  /// Says the integrity changes read before the fix ``nextFix(keepingSentences:)`` gave last
  /// (they hold for it): call just before publishing it. ``release(_:for:)`` does.
  package mutating func releaseIntegrity(for receiver: some ReceiverEventSink) {
    guard !pendingIntegrity.isEmpty else { return sayChangedSuspicion(for: receiver) }
    let consumed = textTaken - decoder.framer.bufferedByteCount
    let epoch = releasingUBXEpoch
    let count = pendingIntegrity.prefix { change in epoch.map { change.ubx <= $0 } ?? (change.text < consumed) }.count
    for change in pendingIntegrity.prefix(count) { say(change.state, for: receiver) }
    pendingIntegrity.removeFirst(count)
    sayChangedSuspicion(for: receiver)
  }

  /// Says the rules' finding, when it changed since it was last said, on the receiver's word.
  private mutating func sayChangedSuspicion(for receiver: some ReceiverEventSink) {
    guard suspicionChanged else { return }
    suspicionChanged = false
    say(said, for: receiver)
  }

  /// Says every integrity change not yet said.
  private mutating func releaseAllIntegrity(for receiver: some ReceiverEventSink) {
    for change in pendingIntegrity { say(change.state, for: receiver) }
    pendingIntegrity.removeAll()
    sayChangedSuspicion(for: receiver)
  }

  private mutating func releaseHeld(through consumed: Int, for receiver: some ReceiverEventSink) {
    let interests = heldBytes.isEmpty && heldFrames.isEmpty ? [] : receiver.interests
    if !heldBytes.isEmpty, consumed > released {
      let count = min(heldBytes.count, consumed - released)
      if interests.contains(.bytes) { receiver.publish(.bytes(Array(heldBytes.prefix(count)))) }
      heldBytes.removeFirst(count)
    }
    released = max(released, consumed)
    if interests.contains(.frames) { for frame in heldFrames { receiver.publish(.frame(frame)) } }
    heldFrames.removeAll(keepingCapacity: true)
    guard !heldSentences.isEmpty else { return }
    for sentence in heldSentences { receiver.publish(.sentence(sentence)) }
    heldSentences.removeAll(keepingCapacity: true)
  }

  // MARK: Counts

  /// Everything taken and thrown away so far, since the pipeline was made.
  package var tally: ReceiverTally {
    var tally = ReceiverTally()
    let counters = decoder.framer.counters
    tally.bytes = taken + released
    tally.sentences = counters.sentences
    tally.ubxFrames = splitter.counters.ubx
    tally.rtcm3Frames = splitter.counters.rtcm3
    for (count, reason) in rejectReasons where count > 0 { tally.rejects[reason] = count }
    return tally.adding(earlier)
  }

  /// Each reason sentences and frames are thrown away for, with its count so far.
  private var rejectReasons: [(Int, String)] {
    let counters = decoder.framer.counters
    var reasons = [
      (counters.badChecksum, "bad checksum"), (counters.missingChecksum, "no checksum"), (counters.malformed, "malformed"),
      (counters.overlong, "overlong"), (decoder.decodeErrors, "undecodable"),
    ]
    let frames = splitter.counters.rejected
    for (stage, name) in [(FramingStage.ubx, "UBX"), (.rtcm3, "RTCM 3")] {
      for reason in FrameRejection.allCases {
        reasons.append((frames[stage]?[reason] ?? 0, "\(name) \(reason.rawValue)"))
      }
    }
    return reasons
  }

  /// Sentences thrown away so far.
  package var rejected: Int {
    let counters = decoder.framer.counters
    return counters.badChecksum + counters.malformed + counters.overlong + counters.missingChecksum + decoder.decodeErrors
      + splitter.counters.rejectedCount
  }

  /// The sentences thrown away so far, by reason: `3 bad checksum, 1 undecodable`.
  package var rejectionSummary: String? {
    let parts = rejectReasons.filter { $0.0 > 0 }
    return parts.isEmpty ? nil : parts.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
  }

  private mutating func publishRejects(for receiver: some ReceiverEventSink) {
    guard isSettled else { return }
    let rejected = self.rejected
    guard rejected != lastRejected else { return }
    lastRejected = rejected
    if let summary = rejectionSummary { receiver.publish(.rejected(summary)) }
  }
}
