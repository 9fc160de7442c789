import GPSLocation

/// `--json`: exactly one JSON object per action and line. Lines are gathered in one reused
/// buffer and written when ``flush()`` is called, which the caller does whenever no further
/// action is ready, so a live source's lines come out at once and a fast replay's in large
/// blocks.
struct JSONLinesOutput: ActionOutput {
  private var lines = ActionJSONLines(capacity: 1 << 16)
  private(set) var failure: SystemError?

  mutating func write(_ action: LocationManager.Action) {
    lines.append(action)
    if lines.bytes.count >= 1 << 16 { flush() }
  }

  mutating func flush() {
    guard !lines.bytes.isEmpty, failure == nil else { return }
    failure = Terminal.tryWrite(lines.bytes)
    lines.removeAll()
  }

  mutating func finish() {
    flush()
  }
}

/// Where actions are printed. ``write(_:)`` may hold output back until ``flush()``.
protocol ActionOutput {
  mutating func write(_ action: LocationManager.Action)
  /// Writes out whatever is held back: called whenever no further action is ready.
  mutating func flush()
  mutating func finish()
  /// Why writing to stdout failed, once it has: the run then stops.
  var failure: SystemError? { get }
}
