import NMEA

/// Evidence that a fix no longer comes from the sky: the receiver heard four or more
/// satellites, then none at all from one epoch to the next, and still gives a position as a
/// fix of its own (not dead reckoning, which says so). A jammed receiver loses its fix with
/// its signals; one that keeps it is being fed its position some other way.
///
/// Judged where the sky is kept (``Fix/satellites``): the last complete GSV groups, so a
/// receiver that sends GSV every few seconds is judged when it does. It lasts while the fix
/// is kept without a signal, and ends when a signal comes back or the fix goes.
struct SignalsLostRule: Sendable {
  /// Satellites heard (with a signal strength) before they went.
  static let heardBefore = 4

  private var heard = 0
  private var found = false

  /// Takes the next fix; whether its position is kept with no signal heard.
  mutating func take(_ fix: Fix) -> Bool {
    let now = fix.satellites.reduce(into: 0) { count, satellite in if let snr = satellite.snr, snr > 0 { count += 1 } }
    defer { heard = now }
    let kept = fix.hasPosition && fix.mode != .none && fix.quality != .deadReckoning && fix.quality != .invalid
    guard kept, now == 0 else {
      found = false
      return false
    }
    if heard >= Self.heardBefore { found = true }
    return found
  }
}
