import GPSLocation
import NMEA

/// The status line under a run's output on a terminal: the source, the fix (or how long it
/// has been lost), the satellites, the receiver's epoch rate and what was rejected.
///
/// It follows the receiver, not the actions: every epoch, with a position or without one,
/// updates and redraws it at once, so losing the fix shows within an epoch, and the rate is
/// the receiver's epochs per second of its own time. Lines of output are written through
/// ``write(_:)``, which clears the status line, writes them, and draws it again beneath, under
/// one lock with the redraws.
final class StatusLine: Sendable {
  let sourceName: String
  /// Whether the line is drawn (stdout is a terminal); off, it only keeps the counts.
  let draws: Bool
  private let state = Shared(State())
  /// The correction stream's health, shown when `run --ntrip` streams one.
  private let corrections = Shared<(@Sendable () -> String)?>(nil)

  /// Shows `health` (the correction stream's, in a few words) on the line from now on.
  func show(corrections health: @escaping @Sendable () -> String) {
    corrections.withLock { $0 = health }
  }

  private struct State {
    var shown = false
    var quality = "waiting for the receiver"
    var satellites: Int?
    /// The receiver's times of its latest epochs, in seconds.
    var epochs: [Double] = []
    /// The receiver's time of the first epoch without a position since the last with one.
    var lostAt: Double?
    var rejected: String?
  }

  init(sourceName: String, receiver: Receiver, draws: Bool = Terminal.standardOutputIsTerminal) {
    self.sourceName = sourceName.escapingControlCharacters
    self.draws = draws
    // Observed, not listened to: the line follows the session the manager keeps; a listener
    // of its own started the device before the manager listened, and a device that failed at
    // once (not a serial device) then said so to nobody, leaving the run waiting (1 to 5
    // runs in 240 on a terminal).
    receiver.observe(wanting: .fixes) { [weak self] event in
      guard let self else { return }
      switch event {
      case .fix(let fix): update(with: fix)
      case .rejected(let counts): state.withLock { $0.rejected = counts }
      default: break
      }
    }
  }

  private func update(with fix: Fix) {
    let seconds = fix.timestamp?.secondsSince1970 ?? Double(fix.time.nanosecondsSinceMidnight) / 1e9
    state.withLock { state in
      // Time going backwards (a capture's loop, a new day without a date) starts afresh.
      if let last = state.epochs.last, seconds < last { state.epochs.removeAll() }
      state.epochs.append(seconds)
      if state.epochs.count > 11 { state.epochs.removeFirst(state.epochs.count - 11) }
      if fix.hasPosition {
        state.lostAt = nil
        let quality = fix.quality == .gps || fix.quality == .invalid ? "GPS" : fix.quality.name
        state.quality = (fix.mode == .threeD ? "3D " : "2D ") + quality
        state.satellites = fix.satellitesUsed
      } else {
        let lostAt = state.lostAt ?? seconds
        state.lostAt = lostAt
        state.quality = seconds - lostAt < 1 ? "no fix" : "no fix for \(Int(seconds - lostAt)) s"
        state.satellites = nil
      }
      if draws { draw(&state) }
    }
  }

  /// The epochs per second of the receiver's own time, or infinity before there are two.
  private func rate(_ epochs: [Double]) -> Double {
    guard epochs.count >= 2, let first = epochs.first, let last = epochs.last, last > first else { return .infinity }
    return Double(epochs.count - 1) / (last - first)
  }

  /// The line as shown, without its colours.
  var text: String {
    state.withLock { state in text(state) }
  }

  private func text(_ state: State) -> String {
    var parts = [sourceName, state.quality]
    if let satellites = state.satellites { parts.append("\(satellites) satellites") }
    let rate = rate(state.epochs)
    if rate.isFinite { parts.append(format(rate, 1) + " Hz") }
    if let rejected = state.rejected { parts.append("rejected: " + rejected) }
    if let corrections = corrections.withLock({ $0 }) { parts.append(corrections()) }
    return parts.joined(separator: " │ ")
  }

  private func draw(_ state: inout State) {
    _ = Terminal.tryWrite(Array(("\r\u{1B}[K\u{1B}[7m " + text(state) + " \u{1B}[0m").utf8))
    state.shown = true
  }

  /// Writes `text` above the status line (which is drawn again beneath it); the first failure
  /// to write stdout, if any.
  func write(_ text: String) -> SystemError? {
    state.withLock { state in
      let cleared = state.shown ? "\r\u{1B}[K" : ""
      state.shown = false
      let failure = Terminal.tryWrite(Array((cleared + text).utf8))
      if failure == nil, draws { draw(&state) }
      return failure
    }
  }

  /// Takes the status line off the screen (at the end of the run).
  func clear() {
    state.withLock { state in
      guard state.shown else { return }
      _ = Terminal.tryWrite(Array("\r\u{1B}[K".utf8))
      state.shown = false
    }
  }
}
