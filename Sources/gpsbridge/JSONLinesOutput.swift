import GPSLocation
import Plumbing

/// `--json`: exactly one JSON object per action and line, written (flushed) per line.
struct JSONLinesOutput: ActionOutput {
  mutating func write(_ action: LocationManager.Action) {
    var writer = JSONWriter()
    action.write(into: &writer)
    var bytes = writer.bytes
    bytes.append(0x0A)
    Terminal.writeBytes(bytes)
  }

  mutating func finish() {}
}

/// Where actions are printed.
protocol ActionOutput {
  mutating func write(_ action: LocationManager.Action)
  mutating func finish()
}
