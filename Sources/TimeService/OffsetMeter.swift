/// What a run of samples says about a receiver's NMEA time against the clock it was read
/// with: the numbers a user would otherwise guess for chrony's `offset` option.
public struct OffsetReport: Hashable, Sendable {
  /// Samples measured.
  public var count: Int
  /// Mean of `system − reference`, seconds: how late the NMEA time arrives (positive), the
  /// value for chrony's `offset` option.
  public var delay: Double
  /// Standard deviation of those delays, seconds: the serial time's jitter.
  public var jitter: Double
  /// What the delays were measured against: "the system clock", or "PPS".
  public var against: String

  /// The line for chrony.conf that corrects the delay, for a SOCK refclock at `path`.
  public func chronyLine(socket path: String) -> String { chronyLine(refclock: "SOCK \(path)") }

  /// The same for the NTP shared-memory segment `unit`.
  public func chronyLine(sharedMemory unit: Int) -> String { chronyLine(refclock: "SHM \(unit)") }

  /// `refclock DRIVER PARAMETER refid NMEA offset … delay …`: the delay measured as the
  /// offset, and four jitters (at least a millisecond) as the delay chrony allows for.
  func chronyLine(refclock: String) -> String {
    "refclock \(refclock) refid NMEA offset \(Self.seconds(delay)) delay \(Self.seconds(max(0.001, 4 * jitter)))"
  }

  /// Seconds with millisecond resolution, as chrony.conf writes them: `0.153`.
  static func seconds(_ value: Double) -> String {
    let milliseconds = Int((value * 1000).rounded())
    let sign = milliseconds < 0 ? "-" : ""
    let magnitude = abs(milliseconds)
    let fraction = String(magnitude % 1000)
    return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
  }

  /// One line for people: "NMEA time arrives 153.2 ms after the second (jitter 2.1 ms, 60 samples, against the system clock)".
  public var summary: String {
    "NMEA time arrives \(Self.milliseconds(delay)) ms after the second (jitter \(Self.milliseconds(jitter)) ms, \(count) samples, against \(against))"
  }

  static func milliseconds(_ value: Double) -> String {
    let tenths = Int((value * 10_000).rounded())
    return "\(tenths < 0 ? "-" : "")\(abs(tenths) / 10).\(abs(tenths) % 10)"
  }
}

/// Gathers serial samples' delays into an ``OffsetReport``. Welford's running mean and
/// variance: constant memory however long it runs.
public struct OffsetMeter: Sendable {
  private var count = 0
  private var mean = 0.0
  private var squares = 0.0
  public var against: String

  public init(against: String = "the system clock") {
    self.against = against
  }

  /// Adds one delay, seconds.
  public mutating func add(delay: Double) {
    count += 1
    let difference = delay - mean
    mean += difference / Double(count)
    squares += difference * (delay - mean)
  }

  /// Adds a serial sample's delay (`system − reference`).
  public mutating func add(_ sample: TimeSample) {
    add(delay: -sample.offset)
  }

  /// What was measured, once anything was.
  public var report: OffsetReport? {
    guard count > 0 else { return nil }
    return OffsetReport(count: count, delay: mean, jitter: count > 1 ? (squares / Double(count - 1)).squareRoot() : 0, against: against)
  }
}
