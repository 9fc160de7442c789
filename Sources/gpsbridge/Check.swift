import GPSD
import GPSLocation
import NMEA

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `gpsbridge check FILE`: what a capture holds and how clean it is. NMEA captures are
/// counted by sentence, gpsd JSON logs (`gpspipe -w`) by report, each with its rejects by reason.
func check(_ options: CheckOptions) -> Int32 {
  let path = options.path
  let descriptor: OpenFile
  do {
    descriptor = path == "-" ? OpenFile(descriptor: 0) : try OpenFile.open(path, O_RDONLY)
  } catch {
    Terminal.diagnostic("Error: cannot read \(path): \(error).")
    return 1
  }
  var reader = SortedCaptureReader()
  var summary = FixSummary()
  var bytesRead = 0
  var buffer = [UInt8](repeating: 0, count: 65_536)
  while true {
    let count: Int
    do {
      count = try descriptor.read(into: &buffer)
    } catch {
      Terminal.diagnostic("Error: reading \(path) failed: \(error).")
      return 1
    }
    if count == 0 { break }
    bytesRead += count
    reader.append(buffer[0..<count])
    while let fix = reader.nextFix() { summary.add(fix) }
  }
  var finished = reader
  finished.finish()
  while let fix = finished.nextFix() { summary.add(fix) }
  let nmeaLike = finished.rejected.filter { ["badChecksum", "missingChecksum"].contains($0.key) }.map(\.count).reduce(0, +)
  guard finished.kinds.contains(where: { $0.count > 0 }) || nmeaLike > 0 else {
    Terminal.diagnostic("Error: \(SourceError.captureHasNoData(path: path, bytes: bytesRead).message)")
    return 1
  }
  let report = CheckReport(path: path, bytes: bytesRead, reader: finished, fixes: summary)
  Terminal.writeBytes(Array((options.json ? report.json : report.text).utf8))
  return 0
}

/// A capture read line by line by kind, as `--replay` reads it (``CaptureLines``): NMEA and
/// gpsd's reports each to their own reader. It is described as NMEA once it holds a sentence
/// (a `gpspipe -r` capture, whose first lines are gpsd's), else as a gpsd log; the reports'
/// fixes count only while no NMEA has been read, as in a replay, so no epoch counts twice.
struct SortedCaptureReader: CaptureReader {
  var lines = CaptureLines()
  var nmea = NMEAReader()
  var gpsd = GPSDLogReader()

  var holdsNMEA: Bool {
    let counters = nmea.decoder.framer.counters
    return counters.sentences + counters.badChecksum + counters.missingChecksum > 0
  }
  private var described: any CaptureReader { holdsNMEA || gpsd.kinds.isEmpty ? nmea : gpsd }

  mutating func append(_ bytes: ArraySlice<UInt8>) {
    var lines = self.lines
    bytes.withUnsafeBytes { bytes in
      lines.sort(bytes, other: { self.nmea.append($0) }, report: { self.gpsd.append($0[...] + [0x0A]) })
    }
    self.lines = lines
  }

  mutating func finish() {
    var lines = self.lines
    lines.finish { self.gpsd.append($0[...]) }
    self.lines = lines
    nmea.finish()
    gpsd.finish()
  }

  mutating func nextFix() -> Fix? {
    if let fix = nmea.nextFix() { return fix }
    while let fix = gpsd.nextFix() { if !holdsNMEA { return fix } }
    return nil
  }

  var unit: String { described.unit }
  var format: String { described.format }
  var kinds: [(kind: String, count: Int)] { described.kinds }
  /// A gpsd log's lines that are no report (nor NMEA, nor a comment) count as malformed.
  var rejected: [(label: String, key: String, count: Int)] {
    guard !(holdsNMEA || gpsd.kinds.isEmpty) else { return nmea.rejected }
    return gpsd.rejected.map { $0.key == "malformed" ? ($0.label, $0.key, $0.count + nmea.decoder.framer.counters.noiseLines) : $0 }
  }
}

/// One capture format, read for `check`: bytes in, fixes out, and what was counted.
protocol CaptureReader {
  mutating func append(_ bytes: ArraySlice<UInt8>)
  mutating func finish()
  mutating func nextFix() -> Fix?
  /// `sentences` or `reports`: what the file is made of.
  var unit: String { get }
  /// The format's name in the JSON summary.
  var format: String { get }
  /// How many of each kind (`GPGGA`, `TPV`) were read, in the order to print.
  var kinds: [(kind: String, count: Int)] { get }
  /// Everything dropped, by reason: the text label, the JSON key, the count.
  var rejected: [(label: String, key: String, count: Int)] { get }
}

/// NMEA 0183, through the same decoder as `--replay`.
struct NMEAReader: CaptureReader {
  var decoder = FixDecoder(countsSentences: true, keepsSatellites: false)

  mutating func append(_ bytes: ArraySlice<UInt8>) { bytes.withUnsafeBytes { append($0) } }
  mutating func append(_ bytes: UnsafeRawBufferPointer) { decoder.append(bytes) }
  mutating func finish() { decoder.finish() }
  mutating func nextFix() -> Fix? { decoder.next() }
  var unit: String { "sentences" }
  var format: String { "nmea" }
  var kinds: [(kind: String, count: Int)] { decoder.tally?.entries ?? [] }
  var rejected: [(label: String, key: String, count: Int)] {
    let counters = decoder.framer.counters
    return [
      ("bad checksum", "badChecksum", counters.badChecksum), ("no checksum", "missingChecksum", counters.missingChecksum),
      ("overlong", "overlong", counters.overlong), ("malformed", "malformed", counters.malformed),
      ("undecodable", "undecodable", decoder.decodeErrors), ("noise bytes", "noiseBytes", counters.noiseBytes),
    ]
  }
}

/// A gpsd JSON log, through the same decoder as `--gpsd`.
struct GPSDLogReader: CaptureReader {
  var decoder = GPSDStreamDecoder()
  var byClass: [String: Int] = [:]

  mutating func append(_ bytes: ArraySlice<UInt8>) { decoder.append(bytes) }
  mutating func finish() { decoder.finish() }
  mutating func nextFix() -> Fix? {
    while let output = decoder.next() {
      switch output {
      case .fix(let fix):
        byClass["TPV", default: 0] += 1
        return fix
      case .report(let report): byClass[report.className, default: 0] += 1
      case .nmea: break
      }
    }
    return nil
  }
  var unit: String { "reports" }
  var format: String { "gpsd" }
  var kinds: [(kind: String, count: Int)] { byClass.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
  var rejected: [(label: String, key: String, count: Int)] {
    let counters = decoder.counters
    return [
      ("malformed", "malformed", counters.malformed), ("out of range", "outOfRange", counters.outOfRange),
      ("overlong", "overlong", counters.overlong),
    ]
  }
}

/// The fixes of a capture: how many, with a position, and the time they span.
struct FixSummary {
  var fixes = 0
  var positions = 0
  var first: UTCTimestamp?
  var last: UTCTimestamp?
  var firstTime: UTCTime?
  var lastTime: UTCTime?

  mutating func add(_ fix: Fix) {
    fixes += 1
    if fix.hasPosition { positions += 1 }
    if let stamp = fix.timestamp {
      if first == nil { first = stamp }
      last = stamp
    }
    if firstTime == nil { firstTime = fix.time }
    lastTime = fix.time
  }

  var span: Double? {
    guard let first, let last else { return nil }
    return last.secondsSince1970 - first.secondsSince1970
  }

  var rate: Double? { span.flatMap { $0 > 0 && fixes > 1 ? Double(fixes - 1) / $0 : nil } }
}

/// `check`'s summary, as text or JSON.
struct CheckReport {
  var path: String
  var bytes: Int
  var reader: any CaptureReader
  var fixes: FixSummary

  var json: String {
    var summary = Summary(
      file: path, format: reader.format, bytes: bytes,
      rejected: Dictionary(reader.rejected.map { ($0.key, $0.count) }, uniquingKeysWith: +), fixes: fixes.fixes,
      fixesWithPosition: fixes.positions, start: fixes.first?.description, end: fixes.last?.description, seconds: fixes.span,
      rate: fixes.rate)
    let kinds = Dictionary(reader.kinds.map { ($0.kind, $0.count) }, uniquingKeysWith: +)
    if reader.unit == "reports" { summary.reports = kinds } else { summary.sentences = kinds }
    return encodedJSON(summary) + "\n"
  }

  /// The JSON summary's fields; what is not known is left out.
  struct Summary: Encodable {
    var file: String
    var format: String
    var bytes: Int
    var sentences: [String: Int]?
    var reports: [String: Int]?
    var rejected: [String: Int]
    var fixes: Int
    var fixesWithPosition: Int
    var start: String?
    var end: String?
    var seconds: Double?
    var rate: Double?
  }

  var text: String {
    func row(_ label: String, _ value: String) -> String { "  " + label.padding(to: 18) + value }
    func count(_ label: String, _ value: Int) -> String { "  " + label.padding(to: 18) + String(value).leftPadding(to: 9) }
    let total = reader.kinds.reduce(0) { $0 + $1.count }
    var lines = ["\(path): \(bytes) bytes, \(total) \(reader.unit)" + (reader.format == "gpsd" ? " (gpsd JSON)" : ""), ""]
    lines.append(reader.unit.uppercased())
    lines += reader.kinds.map { count($0.kind, $0.count) }
    lines += ["", "REJECTED"]
    lines += reader.rejected.map { count($0.label, $0.count) }
    lines += ["", "FIXES", count("epochs", fixes.fixes), count("with a position", fixes.positions)]
    if let first = fixes.first, let last = fixes.last {
      lines += [row("from", "\(first)"), row("to", "\(last)")]
    } else if let firstTime = fixes.firstTime, let lastTime = fixes.lastTime {
      lines += [row("from", "\(firstTime) (no date in the capture)"), row("to", "\(lastTime)")]
    }
    if let span = fixes.span { lines.append(row("span", format(span, 1) + " s")) }
    if let rate = fixes.rate { lines.append(row("rate", format(rate, 2) + " Hz")) }
    return lines.joined(separator: "\n") + "\n"
  }
}

extension String {
  func padding(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
  func leftPadding(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
