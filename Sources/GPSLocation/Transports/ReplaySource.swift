import FoundationEssentials
import NMEA
import Plumbing

/// How fast a capture replays.
public enum ReplaySpeed: Hashable, Sendable, CustomStringConvertible {
  /// At the pace the receiver produced it.
  case realTime
  /// `factor` times faster (2 is twice as fast, 0.5 half as fast).
  case multiplied(by: Double)
  /// As fast as the manager takes the fixes.
  case unlimited

  public var description: String {
    switch self {
    case .realTime: "real time"
    case .multiplied(let factor): "\(factor)×"
    case .unlimited: "as fast as possible"
    }
  }
}

/// A capture to replay: a file of the receiver's own bytes (gpsd-style `#` comments
/// allowed), standard input (`"-"`), or bytes in memory.
public enum Capture: Hashable, Sendable, CustomStringConvertible {
  case file(String)
  case bytes([UInt8], name: String = "capture")

  public var description: String {
    switch self {
    case .file("-"): "standard input"
    case .file(let path): path
    case .bytes(_, let name): name
    }
  }
}

/// Replays a capture through the NMEA pipeline, paced by the fixes' own times.
///
/// The first fix goes out at once; each later one when `clock` has advanced by its time
/// since the first, divided by the speed. Replays read in 64 KiB pieces and wait for the
/// manager to take each fix, so memory stays small whatever the file's size. At the end it
/// reports ``SourceEvent/ended(_:)`` with a summary. Each time the manager starts the source
/// the capture plays from its beginning.
public struct ReplaySource<C: Clock>: FixSource where C.Duration == Duration {
  public let capture: Capture
  public let speed: ReplaySpeed
  public let clock: C
  /// How long the replay waits before its first byte. A manager starts its source on the
  /// first command that needs it; the commands that follow at once (more regions, visits)
  /// land before the first fix, so a replay yields the same actions every time.
  public let leadIn: Duration

  public init(capture: Capture, speed: ReplaySpeed = .realTime, clock: C, leadIn: Duration = .milliseconds(100)) {
    self.capture = capture
    self.speed = speed
    self.clock = clock
    self.leadIn = leadIn
  }

  public var initialAuthorization: AuthorizationStatus { .authorizedAlways }

  /// A replay waits for its subscribers instead of dropping their actions.
  public var prefersLosslessDelivery: Bool { true }

  public func isPresent() async -> Bool {
    switch capture {
    case .file("-"), .bytes: true
    case .file(let path): access(path, R_OK) == 0
    }
  }

  public func checkAuthorization() async -> AuthorizationStatus {
    guard case .file(let path) = capture, path != "-" else { return .authorizedAlways }
    return access(path, R_OK) == 0 || errno != EACCES ? .authorizedAlways : .denied
  }

  public func run(_ deliver: @escaping @Sendable (SourceEvent) async -> Void) async {
    do {
      try await clock.sleep(for: leadIn)
    } catch {
      return
    }
    let today = UTCDate(daysSince1970: Int64((Date().timeIntervalSince1970 / 86_400).rounded(.down)))
    var decoder = FixDecoder(defaultDate: today)
    var pacer = Pacer(speed: speed, clock: clock)
    var fixes = 0

    func drain() async -> Bool {
      while let fix = decoder.next() {
        guard await pacer.wait(for: fix) else { return false }
        fixes += 1
        await deliver(.fix(fix))
        if Task.isCancelled { return false }
      }
      return true
    }

    switch capture {
    case .bytes(let bytes, _):
      var start = 0
      while start < bytes.count {
        let end = min(bytes.count, start + 65_536)
        decoder.append(bytes[start..<end])
        guard await drain() else { return }
        start = end
      }
    case .file(let path):
      let descriptor: FileDescriptor
      do {
        descriptor = path == "-" ? .standardInput : try FileDescriptor.open(path, O_RDONLY)
      } catch {
        await deliver(.ended(.init(error == .permissionDenied ? .denied : .locationUnknown,
          "Cannot read the capture \(path): \(error). Check the path, or record one with 'gpsbridge record'.")))
        return
      }
      defer { if path != "-" { try? descriptor.close() } }
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count: Int
        do {
          count = try buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try descriptor.read(into: raw) } }.get()
        } catch {
          await deliver(.ended(.init(.locationUnknown, "Reading the capture \(capture) failed: \(error).")))
          return
        }
        if count == 0 { break }
        decoder.append(buffer[0..<count])
        guard await drain() else { return }
      }
    }
    decoder.finish()
    guard await drain() else { return }
    let counters = decoder.framer.counters
    var summary = "End of capture \(capture): \(fixes) fixes from \(counters.sentences) sentences"
    let skipped = counters.badChecksum + counters.malformed + counters.overlong + counters.missingChecksum + decoder.decodeErrors
    if skipped > 0 { summary += ", \(skipped) skipped" }
    await deliver(.ended(.init(.endOfCapture, summary + ".")))
  }
}

/// Spaces fixes out by their own times.
struct Pacer<C: Clock> where C.Duration == Duration {
  let speed: ReplaySpeed
  let clock: C
  var start: C.Instant?
  var first: Int64?
  var lastDay: Int64 = 0
  var lastTime: Int64 = -1
  var unpaced = 0

  init(speed: ReplaySpeed, clock: C) {
    self.speed = speed
    self.clock = clock
  }

  /// Sleeps until `fix` is due; `false` when the task was cancelled.
  mutating func wait(for fix: Fix) async -> Bool {
    let factor: Double
    switch speed {
    case .unlimited:
      // Give other tasks a turn now and then, not on every fix: rescheduling per fix
      // costs more than decoding it.
      unpaced += 1
      if unpaced % 64 == 0 { await Task.yield() }
      return !Task.isCancelled
    case .realTime: factor = 1
    case .multiplied(let value): factor = value > 0 ? value : 1
    }
    let nanoseconds = position(of: fix)
    guard let start, let first else {
      self.start = clock.now
      self.first = nanoseconds
      return !Task.isCancelled
    }
    let offset = Double(nanoseconds - first) / factor
    guard offset > 0 else { return !Task.isCancelled }
    let due = start.advanced(by: .nanoseconds(Int64(offset)))
    do {
      try await clock.sleep(until: due, tolerance: nil)
    } catch {
      return false
    }
    return true
  }

  /// Nanoseconds on one timeline: the timestamp when dated, else the time of day with a day
  /// added each time it wraps past midnight.
  mutating func position(of fix: Fix) -> Int64 {
    if let stamp = fix.timestamp { return stamp.nanosecondsSince1970 }
    let time = fix.time.nanosecondsSinceMidnight
    if lastTime >= 0, time + 43_200_000_000_000 < lastTime { lastDay += 1 }
    lastTime = time
    return lastDay * 86_400_000_000_000 + time
  }
}
