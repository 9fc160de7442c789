/// Sorts a capture's bytes line by line: gpsd's JSON reports (a line that starts with `{`)
/// go one way, everything else (NMEA, `#` comments, a receiver's garbage) the other, in the
/// order they came. So a `gpspipe -r` capture, whose first lines are gpsd's VERSION, DEVICES
/// and WATCH, plays its NMEA, and a `gpspipe -w` log plays its reports, whatever else is mixed
/// in.
///
/// A line ends at a line feed or a carriage return, so captures with CR-only line ends (old
/// Macs, some loggers) are read like the rest. A UTF-8 byte order mark at the very start is
/// dropped: an editor that adds one must not hide the `# Date:` line after it. A JSON line
/// longer than ``longestReport`` is dropped and counted, so memory stays bounded.
public struct CaptureLines: Sendable {
  /// The longest gpsd report kept; gpsd's own are under 10 KiB (a SKY of 100 satellites).
  public static let longestReport = 65_536

  private var atLineStart = true
  private var inReport = false
  private var report: [UInt8] = []
  private var overlong = false
  /// Bytes of a possible byte order mark seen at the very start.
  private var startSeen = 0
  /// Reports longer than ``longestReport``, dropped.
  public private(set) var droppedReports = 0
  /// Lines that are neither reports nor NMEA nor comments (no `{`, `$`, `!` or `#` first):
  /// what a gpsd log holds that is not gpsd's.
  public private(set) var strangeLines = 0
  /// The first byte of the current line outside a report, once it has one.
  private var lineFirst: UInt8?

  public init() {}

  private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

  /// Sorts `bytes`, calling `other` with each run of non-report bytes (a slice of `bytes`, so
  /// a piece with no report in it is handed on whole, without a copy) and `report` with each
  /// complete report line, without its line end.
  public mutating func sort(
    _ bytes: [UInt8], other: (ArraySlice<UInt8>) -> Void, report: ([UInt8]) -> Void
  ) {
    var index = bytes.startIndex
    // The byte order mark, possibly split across pieces.
    while startSeen < 3, index < bytes.endIndex {
      guard bytes[index] == Self.byteOrderMark[startSeen] else {
        startSeen = 3
        break
      }
      startSeen += 1
      index += 1
    }
    var runStart = index
    // Whole lines at a time: a tight scan for the next line end, and a look at the first byte
    // of each line (this runs over every byte a replay reads).
    bytes.withUnsafeBufferPointer { buffer in
      let count = buffer.count
      var i = index
      while i < count {
        if inReport {
          var end = i
          while end < count, buffer[end] != 0x0A, buffer[end] != 0x0D { end += 1 }
          let room = Self.longestReport - self.report.count
          if end - i > room { overlong = true }
          if room > 0 { self.report.append(contentsOf: buffer[i..<min(end, i + room)]) }
          guard end < count else { return }
          if !overlong { report(self.report) } else { droppedReports += 1 }
          self.report.removeAll(keepingCapacity: true)
          inReport = false
          overlong = false
          atLineStart = true
          runStart = end + 1
          i = end + 1
          continue
        }
        if atLineStart {
          let first = buffer[i]
          if first == UInt8(ascii: "{") {
            if runStart < i { other(bytes[runStart..<i]) }
            inReport = true
            continue
          }
          if first == 0x0A || first == 0x0D {
            i += 1
            continue
          }
          lineFirst = first
          atLineStart = false
        }
        var end = i
        while end < count, buffer[end] != 0x0A, buffer[end] != 0x0D { end += 1 }
        guard end < count else { return }
        countStrangeLine()
        atLineStart = true
        i = end + 1
      }
    }
    if !inReport, runStart < bytes.endIndex { other(bytes[runStart..<bytes.endIndex]) }
  }

  private mutating func countStrangeLine() {
    if let first = lineFirst, first != UInt8(ascii: "$"), first != UInt8(ascii: "!"), first != UInt8(ascii: "#") {
      strangeLines += 1
    }
    lineFirst = nil
  }

  /// The end of the capture: a report line without its line end is complete all the same.
  public mutating func finish(report: ([UInt8]) -> Void) {
    countStrangeLine()
    if inReport, !overlong, !self.report.isEmpty { report(self.report) }
    self.report.removeAll()
    inReport = false
  }
}
