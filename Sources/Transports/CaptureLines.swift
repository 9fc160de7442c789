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
package struct CaptureLines: Sendable {
  /// The longest gpsd report kept; gpsd's own are under 10 KiB (a SKY of 100 satellites).
  package static let longestReport = 65_536

  private var atLineStart = true
  private var inReport = false
  private var report: [UInt8] = []
  private var overlong = false
  /// Bytes of a possible byte order mark seen at the very start.
  private var startSeen = 0
  /// Reports longer than ``longestReport``, dropped.
  package private(set) var droppedReports = 0
  /// Lines that are neither reports nor NMEA nor comments (no `{`, `$`, `!` or `#` first):
  /// what a gpsd log holds that is not gpsd's.
  package private(set) var strangeLines = 0
  /// The first byte of the current line outside a report, once it has one.
  private var lineFirst: UInt8?

  package init() {}

  private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

  /// Sorts `bytes`, calling `other` with each run of non-report bytes (a slice of `bytes`, so
  /// a piece with no report in it is handed on whole, without a copy) and `report` with each
  /// complete report line, without its line end.
  package mutating func sort(
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
    while index < bytes.endIndex {
      let byte = bytes[index]
      if inReport {
        if byte == 0x0A || byte == 0x0D {
          if !overlong { report(self.report) } else { droppedReports += 1 }
          self.report.removeAll(keepingCapacity: true)
          inReport = false
          overlong = false
          atLineStart = true
          runStart = index + 1
        } else if self.report.count < Self.longestReport {
          self.report.append(byte)
        } else {
          overlong = true
        }
      } else if atLineStart, byte == UInt8(ascii: "{") {
        if runStart < index { other(bytes[runStart..<index]) }
        inReport = true
        self.report.append(byte)
      } else {
        let ends = byte == 0x0A || byte == 0x0D
        if ends {
          countStrangeLine()
        } else if lineFirst == nil {
          lineFirst = byte
        }
        atLineStart = ends
      }
      index += 1
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
  package mutating func finish(report: ([UInt8]) -> Void) {
    countStrangeLine()
    if inReport, !overlong, !self.report.isEmpty { report(self.report) }
    self.report.removeAll()
    inReport = false
  }
}
