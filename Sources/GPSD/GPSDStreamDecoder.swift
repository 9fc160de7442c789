import NMEA

/// gpsd's byte stream to reports and fixes, counting every line it drops and why, as the
/// NMEA framer does: the whole client side of gpsd's protocol short of the socket.
///
/// ```swift
/// var decoder = GPSDStreamDecoder()
/// decoder.append(bytesFromTheSocket)
/// while let output = decoder.next() { … }
/// ```
public struct GPSDStreamDecoder: Sendable {
  /// What happened to every line.
  public struct Counters: Hashable, Sendable {
    /// Lines read as reports.
    public var reports = 0
    /// Lines longer than gpsd ever writes; dropped.
    public var overlong = 0
    /// Lines that are not JSON or not a gpsd report; dropped.
    public var malformed = 0
    /// Reports with a value no receiver can have; dropped.
    public var outOfRange = 0

    public init() {}

    public var rejected: Int { overlong + malformed + outOfRange }

    /// The rejected lines by reason, for a status line: `2 malformed, 1 out of range`.
    public var rejectionSummary: String? {
      let parts = [(malformed, "malformed"), (outOfRange, "out of range"), (overlong, "overlong")].filter { $0.0 > 0 }
      return parts.isEmpty ? nil : parts.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }
  }

  /// What a line gave.
  public enum Output: Equatable, Sendable {
    /// A report completed a fix.
    case fix(Fix)
    /// Any other report.
    case report(GPSDReport)
    /// An NMEA sentence, passed through as written when ``passesNMEA`` is set.
    case nmea(ArraySlice<UInt8>)
  }

  /// Whether lines starting with `$` or `!` (gpsd's NMEA mode) come out as they are.
  public var passesNMEA: Bool
  public private(set) var counters = Counters()
  private var lines = LineSplitter()
  private var assembler = GPSDFixAssembler()
  private var finished = false

  public init(passesNMEA: Bool = false) {
    self.init(passesNMEA: passesNMEA, shape: .init())
  }

  /// A decoder that knows from an earlier connection what this gpsd's full reports carry.
  package init(passesNMEA: Bool, shape: GPSDFixAssembler.Shape) {
    self.passesNMEA = passesNMEA
    assembler.shape = shape
  }

  /// What the fixes so far carried, for the decoder of the next connection to the same gpsd.
  package var shape: GPSDFixAssembler.Shape { assembler.shape }

  public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
    lines.append(bytes)
  }

  /// Bytes of a line not yet complete.
  public var bufferedByteCount: Int { lines.bufferedByteCount }

  /// A report that came another way (through libgps): checked and assembled as a line's
  /// would be. Any fix it completes comes out of ``next()``.
  package mutating func take(_ report: GPSDReport) -> Output? {
    if report.implausibleField != nil {
      counters.outOfRange += 1
      return nil
    }
    counters.reports += 1
    if let fix = assembler.add(report) { return .fix(fix) }
    return .report(report)
  }

  /// Ends the stream: a last line without its newline is read, and a fix still waiting for
  /// gpsd's fuller report of its epoch comes out.
  public mutating func finish() {
    lines.append(CollectionOfOne(0x0A))
    finished = true
  }

  /// The next output, or `nil` when more bytes are needed. Bad lines are counted and skipped.
  public mutating func next() -> Output? {
    defer { counters.overlong = lines.overlongLines }
    if let fix = assembler.takeReady() { return .fix(fix) }
    while let line = lines.next() {
      guard let first = line.first else { continue }
      if passesNMEA, first == UInt8(ascii: "$") || first == UInt8(ascii: "!") { return .nmea(line) }
      let report: GPSDReport
      do {
        report = try GPSDReport(line: line)
      } catch {
        switch error.kind {
        case .malformed: counters.malformed += 1
        case .outOfRange: counters.outOfRange += 1
        }
        continue
      }
      counters.reports += 1
      if let fix = assembler.add(report) { return .fix(fix) }
      return .report(report)
    }
    if finished, let fix = assembler.finish() { return .fix(fix) }
    return nil
  }
}
