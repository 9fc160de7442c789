import Plumbing

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
  public init() {}

  private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

  /// Sorts `bytes`, calling `other` with each run of non-report bytes (a view into `bytes`,
  /// valid during the call, so a piece with no report in it is handed on whole, without a
  /// copy) and `report` with each complete report line, without its line end.
  ///
  /// NMEA never holds a `{`, so the bytes are searched for one (`memchr`, the cost of a scan of
  /// contiguous memory) and only a `{` that begins a line is looked at further: an all-NMEA
  /// piece is not read byte by byte here. (Lines that are neither reports nor NMEA nor comments
  /// are counted by the NMEA framer, which reads every byte anyway: ``Framer/Counters/noiseLines``.)
  public mutating func sort(
    _ bytes: UnsafeRawBufferPointer, other: (UnsafeRawBufferPointer) -> Void, report: ([UInt8]) -> Void
  ) {
    let count = bytes.count
    var index = 0
    // The byte order mark, possibly split across pieces.
    while startSeen < 3, index < count {
      guard bytes[index] == Self.byteOrderMark[startSeen] else {
        startSeen = 3
        break
      }
      startSeen += 1
      index += 1
    }
    guard index < count else { return }
    var runStart = index
    var i = index
    while i < count {
      if inReport {
        let end = Self.lineEnd(in: bytes, from: i)
        let room = Self.longestReport - self.report.count
        if end - i > room { overlong = true }
        if room > 0 { self.report.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<min(end, i + room)])) }
        guard end < count else { return }
        if !overlong { report(self.report) } else { droppedReports += 1 }
        self.report.removeAll(keepingCapacity: true)
        inReport = false
        overlong = false
        runStart = end + 1
        i = end + 1
        continue
      }
      guard let brace = Self.firstBrace(in: bytes, from: i) else { break }
      let beginsLine = brace == index ? atLineStart : Self.isLineEnd(bytes[brace - 1])
      if beginsLine {
        if runStart < brace { other(UnsafeRawBufferPointer(rebasing: bytes[runStart..<brace])) }
        inReport = true
      }
      i = beginsLine ? brace : brace + 1
    }
    if !inReport, runStart < count { other(UnsafeRawBufferPointer(rebasing: bytes[runStart..<count])) }
    atLineStart = inReport ? false : Self.isLineEnd(bytes[count - 1])
  }

  @inline(__always)
  private static func isLineEnd(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }

  /// The index of the first `{` at or after `start`, if any.
  private static func firstBrace(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
    guard let base = bytes.baseAddress, start < bytes.count else { return nil }
    guard let found = memchr(base + start, Int32(UInt8(ascii: "{")), bytes.count - start) else { return nil }
    return UnsafeRawPointer(found) - base
  }

  /// The index of the first line feed or carriage return at or after `start`, or the end.
  private static func lineEnd(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
    var end = start
    let count = bytes.count
    while end < count, !isLineEnd(bytes[end]) { end += 1 }
    return end
  }

  /// The end of the capture: a report line without its line end is complete all the same.
  public mutating func finish(report: ([UInt8]) -> Void) {
    if inReport, !overlong, !self.report.isEmpty { report(self.report) }
    self.report.removeAll()
    inReport = false
  }
}
