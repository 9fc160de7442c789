import NMEA

/// Evidence that a fix no longer comes from the sky: the receiver heard four or more
/// satellites, then none at all from one epoch to the next, and still gives a position as a
/// fix of its own (not dead reckoning, which says so). A jammed receiver loses its fix with
/// its signals; one that keeps it is being fed its position some other way.
///
/// Judged where the sky is kept (``Fix/satellites``: the GSV groups as last sent, so a receiver
/// that sends GSV every few seconds is judged when it does), over two epochs in a row. It lasts while the fix
/// is kept without a signal, and ends when a signal comes back or the fix goes.
struct SignalsLostRule: Sendable {
  /// Satellites heard (with a signal strength) before they went.
  static let heardBefore = 4
  /// Epochs in a row the fix must be kept with none heard: one burst whose GSV was cut short
  /// on the line is no evidence.
  static let epochsInARow = 2

  private var heard = 0
  /// Epochs in a row kept with none heard since four or more were.
  private var silent = 0

  /// Takes the next fix, with how many of its satellites have a signal strength; whether its
  /// position is kept with no signal heard.
  mutating func take(_ fix: Fix, heard now: Int) -> Bool {
    defer { heard = now }
    let kept = fix.hasPosition && fix.mode != .none && fix.quality != .deadReckoning && fix.quality != .invalid
    guard kept, now == 0 else {
      silent = 0
      return false
    }
    if silent > 0 || heard >= Self.heardBefore { silent += 1 }
    return silent >= Self.epochsInARow
  }
}
