import NMEA

/// Chooses the fixes whose times may be given to a clock, and says why it stops and starts:
/// a pure function of the fixes in order (and of whether the system clock is synchronised),
/// so every rule is tested without a receiver or a clock. The same samples go to chrony's
/// socket, the shared-memory segment and the labels of pulses, so one set of rules guards
/// them all.
///
/// A fix is a candidate when
/// - the receiver says its time is valid (the fix has a position: a receiver without a fix
///   sends the time of its own battery clock, which may be off by seconds),
/// - its date is known from the receiver (RMC, ZDA or a capture's `# Date:`), never guessed,
/// - it arrived on a live line (``Fix/arrival`` and ``Fix/arrivalUptime``),
/// - and its date is not before ``releaseDate``: a receiver with the GPS week-rollover bug,
///   a replay, or a simulator playing an old drive is never fed to a clock (said once, as
///   ``TimeNotice/beforeRelease(_:)``).
///
/// Candidates are then held to their own past, measured against the machine's raw clock
/// (``Fix/arrivalUptime``: `CLOCK_MONOTONIC_RAW`, which no time service steps or slews). An
/// epoch is *in line* when the receiver's time moved on by what the raw clock moved, within
/// ``stepTolerance`` (tens of milliseconds: an NMEA burst's arrival jitter, never a second).
/// - **Starting**: the first ``consistentEpochsNeeded`` epochs in a row that are in line make
///   the receiver's timeline. If the system clock is synchronised and disagrees with it
///   (``agrees(delay:latency:)``), that is said and nothing is fed until they agree
///   (``TimeNotice/disagreesWithSystemClock(by:)``); a box whose clock is not synchronised (a
///   first boot with a stale or no RTC) is fed at once, however far it is.
/// - **Feeding**: each epoch in line that is the first of its second gives a sample (at most
///   one a second). An epoch out of line is withheld; if the next one follows it rather than
///   the old timeline, the time *stepped*: feeding stops (``TimeNotice/jumped(by:)``). One
///   late arrival, back in line at the next epoch, is no step.
/// - **Drift**: over the last minute the receiver's time may move against the raw clock by
///   at most ``maximumDriftRate`` (an oscillator's error is a thousandth of that). Faster is
///   said at once (``TimeNotice/drifting(secondsPerSecond:)``); once it has drifted
///   ``maximumDrift`` since, feeding stops as after a step (``TimeNotice/drifted(by:)``).
/// - **Held** after a step or drift: nothing is fed until
///   - the receiver is back on its earlier timeline (a glitch),
///   - or the system clock, synchronised, agrees with the receiver's time within its measured
///     latency ± ``agreement`` (the system clock was corrected, or the receiver came back),
///   - or, on a box whose clock is not synchronised, the new time has held, in line, for
///     ``holdBeforeTrusting`` (10 minutes): nothing better can say which is right. On a
///     synchronised box the hold running out with the step still there is said
///     (``TimeNotice/stillDisagrees``) and the receiver stays unfed.
///   A further step while held starts the wait again.
public struct TimeSampler: Sendable {
  /// The date of this release of gpsbridge. No receiver time before it is fed to a clock, as
  /// gpsd refuses times before its build date. Update it at each release.
  public static let releaseDate = UTCDate(year: 2026, month: 11, day: 25)
  /// Epochs in a row that must be in line before the first sample.
  public static let consistentEpochsNeeded = 3
  /// How far the receiver's time may move from what the raw clock moved between two epochs:
  /// more than a serial line's and an NMEA burst's arrival jitter, far less than any step.
  public static let stepTolerance: Duration = .milliseconds(50)
  /// How close the system clock must be to the receiver's time plus its measured latency to
  /// agree with it.
  public static let agreement: Duration = .milliseconds(50)
  /// Before a latency is measured, the system clock agrees with the receiver when an epoch
  /// arrives within this span after the second it reports (an NMEA burst begins within it).
  public static let plausibleLatency: ClosedRange<Double> = -0.05...0.9
  /// The fastest the receiver's time may move against the raw clock: a millisecond a second
  /// (a thousand parts per million; an oscillator is off by a few tens).
  public static let maximumDriftRate = 0.001
  /// How far a receiver drifting faster than ``maximumDriftRate`` may go before it is no
  /// longer fed.
  public static let maximumDrift: Duration = .milliseconds(100)
  /// How long a new time must hold, in line, after a step before it is trusted on a box whose
  /// clock is not synchronised.
  public static let holdBeforeTrusting: Duration = .seconds(600)
  /// Readings over which the drift rate is measured (about a minute at 1 Hz).
  static let driftWindow = 64

  /// One epoch's time: the receiver's, and when it arrived by the raw and system clocks.
  private struct Reading {
    var reference: Int64
    var uptime: Int64
    var system: Int64

    /// The receiver's time less the raw clock's: constant while the two run together.
    var offset: Int64 { reference - uptime }
    /// The system clock's time less the receiver's, seconds: the latency while the system
    /// clock is right.
    var delay: Double { Double(system - reference) / 1e9 }

    /// Whether `self` follows `earlier` on the same timeline: later, by what the raw clock
    /// moved, within the tolerance.
    func continues(_ earlier: Reading, tolerance: Int64) -> Bool {
      reference > earlier.reference && abs(offset - earlier.offset) <= tolerance
    }

    /// How far the receiver's time moved beyond what the raw clock moved, seconds.
    func jump(from earlier: Reading) -> Double {
      Double(offset - earlier.offset) / 1e9
    }
  }

  private enum State {
    case starting(last: Reading?, consistent: Int)
    /// In line with a synchronised system clock's disagreement, waiting for them to agree.
    case disagreeing(last: Reading)
    case feeding(last: Reading)
    /// One epoch out of line while feeding: `last` is the timeline's latest good epoch.
    case suspect(last: Reading, candidate: Reading)
    /// `trusted`: the last epoch of the timeline fed before the step; `candidate`: the
    /// newest epoch of the new timeline, in line since `since` (raw clock); `said`: whether
    /// the hold running out was said.
    case held(trusted: Reading, candidate: Reading, since: Int64, said: Bool)
  }

  private var state = State.starting(last: nil, consistent: 0)
  private let floor: Int64
  private let systemClockIsSynchronised: @Sendable () -> Bool
  private var saidBeforeRelease = false
  private var lastReference: Int64?
  /// The readings of the current timeline, newest last, for the drift rate.
  private var recent: [Reading] = []
  /// The offset where drifting was first seen, while it lasts.
  private var driftingFrom: Int64?
  /// The receiver's latency measured while fed (the median of recent delays), if any.
  private var delays: [Double] = []
  /// Times the receiver's time stepped or drifted away while it was fed or held.
  public private(set) var jumps = 0
  /// Whether samples are being fed now.
  public var isFeeding: Bool {
    if case .feeding = state { return true }
    return false
  }

  /// A sampler that refuses times before `releaseDate` (tests give an earlier one), asking
  /// `systemClockIsSynchronised` (the kernel's view, by default) whether the system clock
  /// can vouch for or against a receiver's time.
  public init(
    releaseDate: UTCDate = TimeSampler.releaseDate,
    systemClockIsSynchronised: @escaping @Sendable () -> Bool = { SystemClockState.isSynchronised }
  ) {
    floor = UTCTimestamp(date: releaseDate, time: UTCTime(nanosecondsSinceMidnight: 0)).nanosecondsSince1970
    self.systemClockIsSynchronised = systemClockIsSynchronised
  }

  /// What one fix gives: a sample to feed, and what changed, to say.
  public struct Outcome: Hashable, Sendable {
    public var sample: TimeSample?
    public var notice: TimeNotice?
  }

  /// The sample `fix` gives, if it gives one (the notices are dropped: see ``take(_:)``).
  public mutating func sample(_ fix: Fix) -> TimeSample? { take(fix).sample }

  /// The receiver's latency as measured while it was fed, seconds.
  private var latency: Double? {
    guard delays.count >= 5 else { return nil }
    return delays.sorted()[delays.count / 2]
  }

  /// Whether an epoch's `delay` (system clock less the receiver's time) says the system clock
  /// agrees with the receiver: within ``agreement`` of its measured `latency`, or before one
  /// is measured, within ``plausibleLatency``.
  static func agrees(delay: Double, latency: Double?) -> Bool {
    guard let latency else { return plausibleLatency.contains(delay) }
    return abs(delay - latency) <= Double(Int64(nanoseconds: agreement)) / 1e9
  }

  /// Takes the next fix: the sample it gives, if any, and what changed, if anything.
  public mutating func take(_ fix: Fix) -> Outcome {
    guard fix.hasPosition, let timestamp = fix.timestamp, let arrival = fix.arrival, let uptime = fix.arrivalUptime else {
      return Outcome()
    }
    let reading = Reading(
      reference: timestamp.nanosecondsSince1970, uptime: Int64(nanoseconds: uptime), system: arrival.nanosecondsSince1970)
    guard reading.reference >= floor else {
      guard !saidBeforeRelease else { return Outcome() }
      saidBeforeRelease = true
      return Outcome(notice: .beforeRelease(timestamp.date))
    }
    // The same epoch again (a fix updated by a late sentence) says nothing new.
    if reading.reference == lastReference { return Outcome() }
    let firstOfItsSecond = lastReference.map { $0 / 1_000_000_000 != reading.reference / 1_000_000_000 } ?? true
    lastReference = reading.reference
    let tolerance = Int64(nanoseconds: Self.stepTolerance)
    let sample = firstOfItsSecond ? TimeSample(kind: .serial, reference: timestamp, system: arrival) : nil

    switch state {
    case .starting(let last, let consistent):
      let count = last.map { reading.continues($0, tolerance: tolerance) } == true ? consistent + 1 : 1
      guard count > Self.consistentEpochsNeeded else {
        state = .starting(last: reading, consistent: count)
        return Outcome()
      }
      if systemClockIsSynchronised(), !Self.agrees(delay: reading.delay, latency: nil) {
        state = .disagreeing(last: reading)
        return Outcome(notice: .disagreesWithSystemClock(by: reading.delay))
      }
      return feed(reading, sample: sample, fresh: true)
    case .disagreeing(let last):
      // In line or not, the receiver is fed only once the synchronised clock agrees with it
      // (or stops being synchronised, and can vouch for nothing).
      if !systemClockIsSynchronised() || Self.agrees(delay: reading.delay, latency: nil) {
        return feed(reading, sample: sample, fresh: true, notice: .resumed(.systemClockAgrees))
      }
      state = .disagreeing(last: reading.continues(last, tolerance: tolerance) ? reading : last)
      return Outcome()
    case .feeding(let last):
      guard follows(reading, last, tolerance: tolerance) else {
        state = .suspect(last: last, candidate: reading)
        return Outcome()
      }
      return feed(reading, sample: sample)
    case .suspect(let last, let candidate):
      if follows(reading, last, tolerance: tolerance) { return feed(reading, sample: sample) }
      jumps += 1
      guard reading.continues(candidate, tolerance: tolerance) else {
        // Out of line with both: a step all the same, from the new time on.
        state = .held(trusted: last, candidate: reading, since: reading.uptime, said: false)
        return Outcome(notice: .jumped(by: reading.jump(from: last)))
      }
      state = .held(trusted: last, candidate: reading, since: candidate.uptime, said: false)
      return Outcome(notice: .jumped(by: candidate.jump(from: last)))
    case .held(let trusted, let candidate, let since, let said):
      if follows(reading, trusted, tolerance: tolerance) {
        return feed(reading, sample: sample, notice: .resumed(.backInLine))
      }
      let synchronised = systemClockIsSynchronised()
      if synchronised, Self.agrees(delay: reading.delay, latency: latency) {
        return feed(reading, sample: sample, fresh: true, notice: .resumed(.systemClockAgrees))
      }
      guard reading.continues(candidate, tolerance: tolerance) else {
        jumps += 1
        state = .held(trusted: trusted, candidate: reading, since: reading.uptime, said: false)
        return Outcome(notice: .jumped(by: reading.jump(from: candidate)))
      }
      guard reading.uptime - since >= Int64(nanoseconds: Self.holdBeforeTrusting) else {
        state = .held(trusted: trusted, candidate: reading, since: since, said: said)
        return Outcome()
      }
      guard !synchronised else {
        // The synchronised clock still disagrees after the hold: it, not the receiver's new
        // time, is trusted. Said once; the receiver stays unfed.
        state = .held(trusted: trusted, candidate: reading, since: since, said: true)
        return Outcome(notice: said ? nil : .stillDisagrees)
      }
      return feed(reading, sample: sample, fresh: true, notice: .resumed(.heldSteady))
    }
  }

  /// Whether `reading` is in line with the timeline fed, whose latest epoch is `last`: not
  /// later than `last` by more than the tolerance (a step back, or a burst read that much
  /// later than the one before), and not earlier than the timeline's least delayed recent
  /// arrival by more (a step ahead). A late arrival lowers an offset, never raises it, so the
  /// earliest bound is the highest offset fed lately, not `last`'s: bursts read later and later
  /// on a busy machine, each within the tolerance of the one before, make `last` late, and
  /// the prompt arrival after them is no jump.
  private func follows(_ reading: Reading, _ last: Reading, tolerance: Int64) -> Bool {
    guard reading.reference > last.reference, reading.offset >= last.offset - tolerance else { return false }
    let earliest = recent.reduce(last.offset) { max($0, $1.offset) }
    return reading.offset <= earliest + tolerance
  }

  /// Feeds `reading` (its `sample`, if it gives one) on its timeline, watching its drift;
  /// `fresh` starts a new timeline (a new drift and latency measurement).
  private mutating func feed(_ reading: Reading, sample: TimeSample?, fresh: Bool = false, notice: TimeNotice? = nil) -> Outcome {
    if fresh {
      recent.removeAll(keepingCapacity: true)
      delays.removeAll(keepingCapacity: true)
      driftingFrom = nil
    }
    recent.append(reading)
    if recent.count > Self.driftWindow { recent.removeFirst(recent.count - Self.driftWindow) }
    state = .feeding(last: reading)
    // The drift over the window (at least half a minute of it): said once when too fast,
    // and the feed stopped once it has gone too far.
    if let oldest = recent.first, reading.uptime - oldest.uptime >= 30_000_000_000 {
      // The earliest-arriving of the first and of the last few readings: a late arrival
      // lowers an offset, never raises it, so the highest is the least delayed.
      let early = recent.prefix(8).max { $0.offset < $1.offset } ?? oldest
      let late = recent.suffix(8).max { $0.offset < $1.offset } ?? reading
      let rate = Double(late.offset - early.offset) / Double(max(1, late.uptime - early.uptime))
      if abs(rate) > Self.maximumDriftRate {
        guard let start = driftingFrom else {
          driftingFrom = oldest.offset
          return Outcome(sample: sample, notice: notice ?? .drifting(secondsPerSecond: rate))
        }
        if abs(reading.offset - start) > Int64(nanoseconds: Self.maximumDrift) {
          jumps += 1
          let trusted = recent.first!
          state = .held(trusted: trusted, candidate: reading, since: reading.uptime, said: false)
          recent.removeAll(keepingCapacity: true)
          driftingFrom = nil
          return Outcome(notice: .drifted(by: Double(reading.offset - start) / 1e9))
        }
      } else {
        driftingFrom = nil
      }
    }
    if systemClockIsSynchronised() {
      delays.append(reading.delay)
      if delays.count > Self.driftWindow { delays.removeFirst(delays.count - Self.driftWindow) }
    }
    return Outcome(sample: sample, notice: notice)
  }
}

extension Int64 {
  /// A duration in whole nanoseconds.
  init(nanoseconds duration: Duration) {
    let (seconds, attoseconds) = duration.components
    self = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}
