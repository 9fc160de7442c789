import NMEA

/// Why the time service stopped or started feeding a receiver's time to the clock: each is
/// said once, on stderr and in `?TIMESERVICE`, when it happens.
public enum TimeNotice: Hashable, Sendable, CustomStringConvertible {
  /// The receiver's date is before this release of gpsbridge (``TimeSampler/releaseDate``).
  case beforeRelease(UTCDate)
  /// The receiver's time moved this many seconds more than the boot clock did: feeding stops.
  case jumped(by: Double)
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
      let sign = seconds < 0 ? "-" : "+"
      let minutes = Int(TimeSampler.holdBeforeTrusting.components.seconds / 60)
      return "the receiver's time jumped by \(sign)\(OffsetReport.seconds(abs(seconds))) s against this machine's steady clock:"
        + " not fed to the clock until the new time holds for \(minutes) minutes or the system clock agrees with it"
    case .resumed(.backInLine):
      return "the receiver's time is back in line with its earlier samples: fed to the clock again"
    case .resumed(.systemClockAgrees):
      return "the system clock now agrees with the receiver's time within 1 s: fed to the clock again"
    case .resumed(.heldSteady):
      let minutes = Int(TimeSampler.holdBeforeTrusting.components.seconds / 60)
      return "the receiver's new time has held steady for \(minutes) minutes: fed to the clock again"
    }
  }
}
