/// What a run of samples says about a receiver's NMEA time against the clock it was read
/// with: the numbers a user would otherwise guess for chrony's `offset` option.
public struct OffsetReport: Hashable, Sendable {
  /// Samples measured since the receiver's time last jumped.
  public var count: Int
  /// Median of `system − reference`, seconds: how late the NMEA time arrives (positive), the
  /// value for chrony's `offset` option.
  public var delay: Double
  /// The delays' median absolute deviation scaled to a standard deviation, seconds: the
  /// serial time's jitter.
  public var jitter: Double

  /// The largest delay taken for NMEA latency: a receiver sends its sentences well within
  /// the second they report. Beyond it the receiver's second, or the system clock, is wrong,
  /// and no offset is advised.
  public static let plausibleDelay = 1.0

  /// Whether ``delay`` can be NMEA latency, so that an offset may be advised for it.
  public var isPlausible: Bool { abs(delay) <= Self.plausibleDelay }
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

  /// One line for people: "NMEA time arrives 153.2 ms after the second (jitter 2.1 ms, 60
  /// samples, against the system clock)"; or, when the delay cannot be latency, what that
  /// means instead.
  public var summary: String {
    guard isPlausible else {
      let direction = delay > 0 ? "behind" : "ahead of"
      return "the receiver's time is \(Self.seconds(abs(delay))) s \(direction) \(against) (median of \(count) samples):"
        + " that is no NMEA delay, which is under a second. Either the system clock has not been set yet"
        + " (chrony steps it with makestep), or the receiver's second is wrong. No offset is advised"
    }
    return
      "NMEA time arrives \(Self.milliseconds(delay)) ms after the second (jitter \(Self.milliseconds(jitter)) ms, \(count) samples, against \(against))"
  }

  static func milliseconds(_ value: Double) -> String {
    let tenths = Int((value * 10_000).rounded())
    return "\(tenths < 0 ? "-" : "")\(abs(tenths) / 10).\(abs(tenths) % 10)"
  }
}

/// Gathers serial samples' delays into an ``OffsetReport`` with robust statistics: the
/// median delay and the median absolute deviation, so that a few wild samples (a stalled
/// machine, a glitch) move neither. It keeps the latest ``window`` delays, so its memory is
/// bounded however long it runs; ``reset()`` starts again after a discontinuity, so the
/// advice describes the receiver's time since its last jump only.
public struct OffsetMeter: Sendable {
  /// Delays kept: the last ten minutes at one sample a second.
  public static let window = 600
  private var delays: [Double] = []
  private var next = 0
  private var count = 0
  public var against: String

  public init(against: String = "the system clock") {
    self.against = against
  }

  /// Adds one delay, seconds.
  public mutating func add(delay: Double) {
    count += 1
    if delays.count < Self.window {
      delays.append(delay)
    } else {
      delays[next] = delay
      next = (next + 1) % Self.window
    }
  }

  /// Adds a serial sample's delay (`system − reference`).
  public mutating func add(_ sample: TimeSample) {
    add(delay: -sample.offset)
  }

  /// Forgets every delay: what follows a discontinuity is measured on its own.
  public mutating func reset() {
    delays.removeAll(keepingCapacity: true)
    next = 0
    count = 0
  }

  /// What was measured, once anything was.
  public var report: OffsetReport? {
    guard count > 0 else { return nil }
    let median = Self.median(delays)
    // The median absolute deviation, scaled to a normal distribution's standard deviation.
    let spread = Self.median(delays.map { abs($0 - median) }) * 1.4826
    return OffsetReport(count: count, delay: median, jitter: spread, against: against)
  }

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }
}
