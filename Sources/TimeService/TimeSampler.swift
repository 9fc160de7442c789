import NMEA

/// Chooses the fixes whose times may be given to a clock, and says why it stops and starts:
/// a pure function of the fixes in order, so every rule is tested without a receiver or a
/// clock. The same samples go to chrony's socket, the shared-memory segment and the labels of
/// pulses, so one set of rules guards them all.
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
/// Candidates are then held to their own past, measured against the boot clock, which nobody
/// steps: an epoch is *continuous* when the receiver's time moved on by what the boot clock
/// moved, within ``tolerance``.
/// - **Starting**: the first ``consistentEpochsNeeded`` epochs in a row that are continuous
///   make the receiver's timeline; it is then fed at once, however far it is from the system
///   clock. A box that boots with a stale clock (no RTC) is the common case, and its receiver
///   is continuous from the start.
/// - **Feeding**: each continuous epoch that is the first of its second gives a sample (at
///   most one a second). An epoch that is not continuous is a jump: feeding stops
///   (``TimeNotice/jumped(by:)``).
/// - **Held** after a jump: nothing is fed until one of
///   - the receiver is back on its earlier timeline (a glitch),
///   - the system clock agrees with the new time within ``tolerance`` (it was corrected),
///   - the new time has held, continuous, for ``holdBeforeTrusting`` (10 minutes).
///   A further jump while held starts the wait again.
public struct TimeSampler: Sendable {
  /// The date of this release of gpsbridge. No receiver time before it is fed to a clock, as
  /// gpsd refuses times before its build date. Update it at each release.
  public static let releaseDate = UTCDate(year: 2026, month: 11, day: 25)
  /// Epochs in a row that must be continuous before the first sample.
  public static let consistentEpochsNeeded = 3
  /// How far the receiver's time may move from what the boot clock says, and how close the
  /// system clock must come to a held time to vouch for it: more than a serial line's jitter
  /// and any NMEA delay, less than any real time jump.
  public static let tolerance: Duration = .seconds(1)
  /// How long a new time must hold, continuous, after a jump before it is trusted.
  public static let holdBeforeTrusting: Duration = .seconds(600)

  /// One epoch's time: the receiver's, and when it arrived by the boot and system clocks.
  private struct Reading {
    var reference: Int64
    var uptime: Int64
    var system: Int64

    /// Whether `self` follows `earlier` on the same timeline: later, by what the boot clock
    /// moved, within the tolerance.
    func continues(_ earlier: Reading, tolerance: Int64) -> Bool {
      let step = reference - earlier.reference
      return step > 0 && abs(step - (uptime - earlier.uptime)) <= tolerance
    }

    /// How far the receiver's time moved beyond what the boot clock moved, seconds.
    func jump(from earlier: Reading) -> Double {
      Double((reference - earlier.reference) - (uptime - earlier.uptime)) / 1e9
    }
  }

  private enum State {
    case starting(last: Reading?, consistent: Int)
    case feeding(last: Reading)
    /// `trusted`: the last epoch of the timeline fed before the jump; `candidate`: the
    /// newest epoch of the new timeline, continuous since `since` (boot clock).
    case held(trusted: Reading, candidate: Reading, since: Int64)
  }

  private var state = State.starting(last: nil, consistent: 0)
  private let floor: Int64
  private var saidBeforeRelease = false
  private var lastReference: Int64?
  /// Times the receiver's time jumped while it was fed or held.
  public private(set) var jumps = 0
  /// Whether samples are being fed now (started, and not held after a jump).
  public var isFeeding: Bool {
    if case .feeding = state { return true }
    return false
  }

  /// A sampler that refuses times before `releaseDate` (tests give an earlier one).
  public init(releaseDate: UTCDate = TimeSampler.releaseDate) {
    floor = UTCTimestamp(date: releaseDate, time: UTCTime(nanosecondsSinceMidnight: 0)).nanosecondsSince1970
  }

  /// What one fix gives: a sample to feed, and what changed, to say.
  public struct Outcome: Hashable, Sendable {
    public var sample: TimeSample?
    public var notice: TimeNotice?
  }

  /// The sample `fix` gives, if it gives one (the notices are dropped: see ``take(_:)``).
  public mutating func sample(_ fix: Fix) -> TimeSample? { take(fix).sample }

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
    let tolerance = Int64(nanoseconds: Self.tolerance)
    let sample = firstOfItsSecond ? TimeSample(kind: .serial, reference: timestamp, system: arrival) : nil

    switch state {
    case .starting(let last, let consistent):
      let count = last.map { reading.continues($0, tolerance: tolerance) } == true ? consistent + 1 : 1
      guard count > Self.consistentEpochsNeeded else {
        state = .starting(last: reading, consistent: count)
        return Outcome()
      }
      state = .feeding(last: reading)
      return Outcome(sample: sample)
    case .feeding(let last):
      if reading.continues(last, tolerance: tolerance) {
        state = .feeding(last: reading)
        return Outcome(sample: sample)
      }
      jumps += 1
      state = .held(trusted: last, candidate: reading, since: reading.uptime)
      return Outcome(notice: .jumped(by: reading.jump(from: last)))
    case .held(let trusted, let candidate, let since):
      if reading.continues(trusted, tolerance: tolerance) {
        state = .feeding(last: reading)
        return Outcome(sample: sample, notice: .resumed(.backInLine))
      }
      if abs(reading.reference - reading.system) <= tolerance {
        state = .feeding(last: reading)
        return Outcome(sample: sample, notice: .resumed(.systemClockAgrees))
      }
      guard reading.continues(candidate, tolerance: tolerance) else {
        jumps += 1
        state = .held(trusted: trusted, candidate: reading, since: reading.uptime)
        return Outcome(notice: .jumped(by: reading.jump(from: candidate)))
      }
      guard reading.uptime - since >= Int64(nanoseconds: Self.holdBeforeTrusting) else {
        state = .held(trusted: trusted, candidate: reading, since: since)
        return Outcome()
      }
      state = .feeding(last: reading)
      return Outcome(sample: sample, notice: .resumed(.heldSteady))
    }
  }
}

extension Int64 {
  /// A duration in whole nanoseconds.
  init(nanoseconds duration: Duration) {
    let (seconds, attoseconds) = duration.components
    self = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}
