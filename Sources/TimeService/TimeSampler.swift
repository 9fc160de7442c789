import NMEA

/// Chooses the fixes whose times may be given to a clock: a pure function of the fixes in
/// order, so every rule is tested without a receiver or a clock.
///
/// A fix becomes a ``TimeSample`` when
/// - the receiver says its time is valid (the fix has a position: a receiver without a fix
///   sends the time of its own battery clock, which may be off by seconds),
/// - its date is known from the receiver (RMC, ZDA or a capture's `# Date:`), never guessed,
/// - it arrived on a live line (``Fix/arrival``),
/// - it follows ``consistentEpochsNeeded`` epochs whose receiver times and arrival times
///   moved on alike (within ``tolerance``): a time that jumps, on either clock, starts the
///   count again, so a receiver that has just set its clock or a system clock that was just
///   stepped gives nothing until both agree again,
/// - and it is the first epoch of its second (a 10 Hz receiver's `.0`): at most one sample
///   a second.
public struct TimeSampler: Sendable {
  /// Epochs in a row that must agree before the first sample.
  public static let consistentEpochsNeeded = 3
  /// How much the receiver's and the system's steps between epochs may differ, nanoseconds:
  /// more than a serial line's jitter, less than any real time jump.
  public static let tolerance: Int64 = 250_000_000

  private var last: (reference: Int64, system: Int64)?
  private var consistent = 0
  /// Times the count started again after a jump.
  public private(set) var restarts = 0

  public init() {}

  /// The sample `fix` gives, if it gives one.
  public mutating func sample(_ fix: Fix) -> TimeSample? {
    guard fix.hasPosition, let timestamp = fix.timestamp, let arrival = fix.arrival else { return nil }
    let reference = timestamp.nanosecondsSince1970
    let system = arrival.nanosecondsSince1970
    let second = reference / 1_000_000_000
    var firstOfItsSecond = true
    if let last {
      let step = reference - last.reference
      // The same epoch again (a fix updated by a late sentence) says nothing new.
      if step == 0 { return nil }
      firstOfItsSecond = last.reference / 1_000_000_000 != second
      self.last = (reference, system)
      if step < 0 || abs(step - (system - last.system)) > Self.tolerance {
        restarts += 1
        consistent = 1
        return nil
      }
      consistent += 1
    } else {
      last = (reference, system)
      consistent = 1
    }
    guard consistent > Self.consistentEpochsNeeded, firstOfItsSecond else { return nil }
    return TimeSample(kind: .serial, reference: timestamp, system: arrival)
  }
}
