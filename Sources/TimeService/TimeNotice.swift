import NMEA

/// Why the time service stopped or started feeding a receiver's time to the clock: each is
/// said once, on stderr and in `?TIMESERVICE`, when it happens.
public enum TimeNotice: Hashable, Sendable, CustomStringConvertible {
  /// The receiver's date is before this release of gpsbridge (``TimeSampler/releaseDate``).
  case beforeRelease(UTCDate)
  /// The receiver's time stepped this many seconds against the machine's raw clock: feeding
  /// stops.
  case jumped(by: Double)
  /// The receiver's time runs this much faster (or, negative, slower) than the machine's raw
  /// clock, seconds a second, beyond ``TimeSampler/maximumDriftRate``: said, still fed.
  case drifting(secondsPerSecond: Double)
  /// The receiver's time drifted this far, beyond ``TimeSampler/maximumDrift``: feeding stops.
  case drifted(by: Double)
  /// The synchronised system clock is this many seconds behind the receiver's time as its
  /// first epochs arrive, beyond any NMEA latency: not fed until they agree.
  case disagreesWithSystemClock(by: Double)
  /// The hold after a step ran out and the synchronised system clock still disagrees with the
  /// receiver's new time: it stays unfed.
  case stillDisagrees
  /// The receiver says its signals are spoofed or critically jammed, or its antenna is short
  /// (or open while the fix degrades), or gpsbridge's own rules find it spoofed: feeding stops
  /// until its signals have been clean for a minute, by the machine's raw clock.
  case interference(Interference)
  /// Feeding starts again, for this reason.
  case resumed(Resumption)

  /// Why a held receiver is trusted again.
  public enum Resumption: Hashable, Sendable {
    /// Its time is back on the timeline it had before the jump.
    case backInLine
    /// The system clock agrees with its new time (the system clock was corrected).
    case systemClockAgrees
    /// Its new time has held, continuous, for ``TimeSampler/holdBeforeTrusting``.
    case heldSteady
    /// The receiver's signals have been clean for a minute.
    case signalsClean
  }

  /// `2024-05-01`.
  static func iso(_ date: UTCDate) -> String {
    func padded(_ value: Int, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(padded(date.year, 4))-\(padded(date.month, 2))-\(padded(date.day, 2))"
  }

  /// Whether the receiver's time is fed to the clock after this.
  public var feeds: Bool {
    if case .resumed = self { return true }
    return false
  }

  public var description: String {
    switch self {
    case .beforeRelease(let date):
      return "the receiver says \(Self.iso(date)); that is before this release of gpsbridge: not fed to the clock"
        + " (a receiver with the week-rollover bug, or a replayed or simulated old drive)"
    case .jumped(let seconds):
      let minutes = Int(TimeSampler.holdBeforeTrusting.components.seconds / 60)
      return "the receiver's time jumped by \(Self.signed(seconds)) s against this machine's steady clock:"
        + " not fed to the clock until it is back in line or the system clock agrees with it"
        + " (or, if the system clock is not synchronised, the new time holds for \(minutes) minutes)"
    case .drifting(let rate):
      return "the receiver's time drifts by \(Self.signed(rate * 1000, decimals: 1)) ms a second against this machine's steady clock"
        + " (a good receiver drifts by nothing): fed while it stays within"
        + " \(Int64(nanoseconds: TimeSampler.maximumDrift) / 1_000_000) ms"
    case .drifted(let seconds):
      return "the receiver's time drifted by \(Self.signed(seconds)) s against this machine's steady clock:"
        + " not fed to the clock until it is back in line or the system clock agrees with it"
    case .disagreesWithSystemClock(let seconds):
      return "the synchronised system clock is \(Self.signed(seconds)) s from the receiver's time, beyond any NMEA latency:"
        + " not fed to the clock until they agree (check the receiver's time, or the clock's source with 'chronyc sources')"
    case .stillDisagrees:
      let minutes = Int(TimeSampler.holdBeforeTrusting.components.seconds / 60)
      return "the receiver's new time has held for \(minutes) minutes, and the synchronised system clock still disagrees"
        + " with it: the receiver stays unfed until they agree"
    case .interference(let interference):
      let seconds = InterferenceHold.settlingTime.components.seconds
      let until = "not fed to the clock until its signals have been clean for \(seconds) s"
      switch interference {
      case .spoofing(_, .motion):
        return "the receiver looks spoofed: its position parts from where its own velocity takes it (gpsbridge's judgement); " + until
      case .spoofing(_, .alikeSignals):
        return "the receiver looks spoofed: every satellite comes in as strong as the others (gpsbridge's judgement); " + until
      case .spoofing(_, .timeRate):
        return "the receiver looks spoofed: its time runs at another rate than this machine's clock (gpsbridge's judgement); "
          + until
      case .spoofing(_, .signalsLost):
        return "the receiver looks spoofed: it keeps its fix with no satellite heard (gpsbridge's judgement); " + until
      default:
        return "the receiver says \(Self.describe(interference)): " + until
      }
    case .resumed(.signalsClean):
      let seconds = InterferenceHold.settlingTime.components.seconds
      return "the receiver's signals have been clean for \(seconds) s: fed to the clock again"
    case .resumed(.backInLine):
      return "the receiver's time is back in line with its earlier samples: fed to the clock again"
    case .resumed(.systemClockAgrees):
      return "the system clock now agrees with the receiver's time: fed to the clock again"
    case .resumed(.heldSteady):
      let minutes = Int(TimeSampler.holdBeforeTrusting.components.seconds / 60)
      return "the receiver's new time has held steady for \(minutes) minutes: fed to the clock again"
    }
  }

  /// "its signals are spoofed (spoofing affirmed, by SEC-SIG)".
  static func describe(_ interference: Interference) -> String {
    let what =
      switch interference {
      case .spoofing(let state, _): "its signals are spoofed (spoofing \(state == .affirmed ? "affirmed" : "indicated")"
      case .jamming: "it is jammed (jamming critical"
      case .antennaShort: "its antenna is short-circuited (no sky reaches it"
      case .antennaOpen: "its antenna is open, and its fix has degraded (lost, or under four satellites"
      }
    return what + (interference.source.map { ", by \($0.rawValue))" } ?? ")")
  }

  /// `+1.000`, `-0.850`: seconds with their sign.
  static func signed(_ value: Double, decimals: Int = 3) -> String {
    guard decimals != 3 else { return (value < 0 ? "-" : "+") + OffsetReport.seconds(abs(value)) }
    let scale = (0..<decimals).reduce(1.0) { value, _ in value * 10 }
    return (value < 0 ? "-" : "+") + "\((abs(value) * scale).rounded() / scale)"
  }
}
