import NMEA
import Plumbing
import Transports

/// Feeds one receiver's time samples to the reference clocks it was given, and measures its
/// NMEA delay: what `gpsbridge serve --chrony … --ntp-shm …` runs beside the server.
public final class ClockFeed: Sendable {
  /// Where the samples go.
  public struct Outputs: Sendable {
    /// chrony's SOCK refclock socket for the serial (NMEA) time.
    public var chrony: String?
    /// The NTP shared-memory unit for the serial time.
    public var sharedMemoryUnit: Int?
    /// Whether pulses (PPS) are fed too: to their own refclocks, ``pulseChrony`` and
    /// ``pulseSharedMemoryUnit``, since chrony and ntpd weigh the two as two clocks.
    public var pulses: Bool

    public init(chrony: String? = nil, sharedMemoryUnit: Int? = nil, pulses: Bool = false) {
      self.chrony = chrony
      self.sharedMemoryUnit = sharedMemoryUnit
      self.pulses = pulses
    }

    /// The outputs of one of several receivers, numbered from 0 in the order they are
    /// served: the socket takes the device's name before `.sock` (`/run/chrony.sock` and
    /// `/dev/ttyUSB1` → `/run/chrony.ttyUSB1.sock`, as gpsd names its `chrony.<dev>.sock`), the
    /// shared-memory units go two by two (the receiver's NMEA time at unit + 2 × number, its
    /// pulses at the next), as gpsd numbers its devices'.
    public func receiver(named device: String, number: Int) -> Outputs {
      var outputs = self
      let name = String(device.split(separator: "/").last ?? "receiver").map { character in
        character.isLetter || character.isNumber || "._-".contains(character) ? character : "_"
      }
      outputs.chrony = chrony.map { path in
        path.hasSuffix(".sock") ? String(path.dropLast(5)) + "." + String(name) + ".sock" : path + "." + String(name)
      }
      outputs.sharedMemoryUnit = sharedMemoryUnit.map { $0 + 2 * number }
      return outputs
    }

    /// The PPS refclock's socket: the serial one's with `-pps` before `.sock`
    /// (`/run/chrony.gps.sock` → `/run/chrony.gps-pps.sock`).
    public var pulseChrony: String? {
      guard pulses, let chrony else { return nil }
      return chrony.hasSuffix(".sock") ? String(chrony.dropLast(5)) + "-pps.sock" : chrony + "-pps"
    }

    /// The PPS refclock's shared-memory unit: the one after the serial one.
    public var pulseSharedMemoryUnit: Int? {
      guard pulses, let sharedMemoryUnit else { return nil }
      return sharedMemoryUnit + 1
    }
  }

  /// Serial samples measured before the delay is reported: a minute at one a second.
  public static let samplesBeforeReport = 60

  private let outputs: Outputs
  private let chrony: ChronySocket?
  private let sharedMemory: NTPSharedMemory?
  private let pulseChrony: ChronySocket?
  private let pulseSharedMemory: NTPSharedMemory?
  private let meter: Locked<OffsetMeter>
  /// Whether the receiver's time is being fed, and the last thing said about it.
  private let integrity = Locked(Integrity())

  /// Whether the receiver's time is fed to the clock now, and why not.
  public struct Integrity: Sendable {
    /// Whether samples go to the refclocks now.
    public var feeding = false
    /// The last stop or resume, or the refusal of an old date.
    public var notice: TimeNotice?
  }
  /// The latest pulse, whose second a serial sample of the same second is measured against.
  private let lastPulse = Locked<TimeSample?>(nil)

  /// Opens the outputs. `said` hears, in words for people, how chrony's sockets are at once
  /// and each time that changes.
  /// - Throws: a ``ClockFeedError`` naming the output that cannot be opened and why.
  public init(_ outputs: Outputs, said: @escaping @Sendable (String) -> Void = { _ in }) throws(ClockFeedError) {
    self.outputs = outputs
    meter = Locked(OffsetMeter(against: outputs.pulses ? "PPS" : "the system clock"))
    chrony = try Self.socket(outputs.chrony, said: said)
    pulseChrony = try Self.socket(outputs.pulseChrony, said: said)
    sharedMemory = try Self.segment(outputs.sharedMemoryUnit)
    pulseSharedMemory = try Self.segment(outputs.pulseSharedMemoryUnit)
  }

  private static func socket(_ path: String?, said: @escaping @Sendable (String) -> Void) throws(ClockFeedError) -> ChronySocket? {
    guard let path else { return nil }
    do {
      return try ChronySocket(path: path) { health in
        said(
          health == .taking ? "chrony's socket \(path): \(health)." : "chrony's socket \(path): \(health); samples are dropped meanwhile.")
      }
    } catch {
      throw ClockFeedError(message: "cannot make a socket to send chrony samples: \(error).")
    }
  }

  private static func segment(_ unit: Int?) throws(ClockFeedError) -> NTPSharedMemory? {
    guard let unit else { return nil }
    do {
      return try NTPSharedMemory(unit: unit)
    } catch {
      throw ClockFeedError(message: Self.explain(error, unit: unit))
    }
  }

  static func explain(_ failure: NTPSharedMemory.Failure, unit: Int) -> String {
    let key = "0x" + String(NTPSharedMemory.key(unit: unit), radix: 16)
    let error: Errno
    switch failure {
    case .ownedByAnotherUser(let uid):
      return "NTP shared-memory unit \(unit) (key \(key)) was made by user \(uid), not by root or this user: "
        + "anyone could be writing to it. Remove it (ipcrm -M \(key)) or choose another unit."
    case .writableByOthers(let mode):
      return "NTP shared-memory unit \(unit) (key \(key)) is writable by other users (mode 0\(String(mode, radix: 8))):"
        + " units 0 and 1 are private, and anyone could set the clock through this one."
        + " Remove it (ipcrm -M \(key)) so that gpsbridge makes it 0600, or choose another unit."
    case .system(let system):
      error = system
    }
    switch error {
    case .permissionDenied:
      return "cannot open NTP shared-memory unit \(unit) (key \(key)): it belongs to another user"
        + (unit < 2
          ? " (units 0 and 1 are root's: run as root, or use --ntp-shm 2 or above)." : " (ipcs -m shows it; ipcrm -M \(key) removes it).")
    case .invalidArgument:
      return "cannot open NTP shared-memory unit \(unit) (key \(key)): a segment of another size has that key (ipcs -m shows it)."
    default:
      return "cannot open NTP shared-memory unit \(unit) (key \(key)): \(error)."
    }
  }

  /// The delay measured so far, since the receiver's time last jumped.
  public var report: OffsetReport? { meter.withLock { $0.report } }

  /// Whether the receiver's time is fed now, and the last thing said about it.
  public var state: Integrity { integrity.withLock { $0 } }

  /// Takes what the receiver's ``TimeSampler`` said: after a jump, and when feeding resumes
  /// after one, the delay is measured afresh, so the advice never averages a jump in.
  public func note(_ notice: TimeNotice) {
    integrity.withLock { integrity in
      integrity.notice = notice
      // A jump, or a date before this release, stops the feeding until good time comes again
      // (the next sample sent says so): the report must not say "feeding" meanwhile.
      switch notice {
      case .jumped, .beforeRelease, .drifted, .disagreesWithSystemClock, .stillDisagrees, .interference: integrity.feeding = false
      case .resumed, .drifting: break
      }
      if notice.feeds { integrity.feeding = true }
    }
    switch notice {
    case .beforeRelease, .drifting, .stillDisagrees: return
    default: meter.withLock { $0.reset() }
    }
  }

  /// Takes one sample: sends it on, measures it. Returns the report the moment it is first
  /// due (after ``samplesBeforeReport`` serial samples).
  @discardableResult
  public func take(_ sample: TimeSample) -> OffsetReport? {
    switch sample.kind {
    case .pulse:
      pulseChrony?.send(sample)
      pulseSharedMemory?.write(sample, precision: -20)
      lastPulse.withLock { $0 = sample }
      return nil
    case .serial:
      integrity.withLock { $0.feeding = true }
      chrony?.send(sample)
      sharedMemory?.write(sample, precision: -1)
      // With PPS, the delay is measured from the pulse of the same second: the system
      // clock's own error drops out.
      let delay: Double
      if outputs.pulses {
        guard let pulse = lastPulse.withLock({ $0 }),
          pulse.reference.nanosecondsSince1970 / 1_000_000_000
            == sample.reference.nanosecondsSince1970 / 1_000_000_000
        else { return nil }
        delay = Double(sample.system.nanosecondsSince1970 - pulse.system.nanosecondsSince1970) / 1e9
      } else {
        delay = -sample.offset
      }
      return meter.withLock { meter in
        meter.add(delay: delay)
        let report = meter.report
        return report?.count == Self.samplesBeforeReport ? report : nil
      }
    }
  }

  /// The chrony.conf lines for the refclocks fed, with `report`'s offset; none when the delay
  /// measured cannot be NMEA latency (see ``OffsetReport/isPlausible``).
  public func chronyConfiguration(_ report: OffsetReport) -> [String] {
    guard report.isPlausible else { return [] }
    var lines: [String] = []
    if let path = outputs.chrony { lines.append(report.chronyLine(socket: path)) }
    if let unit = outputs.sharedMemoryUnit { lines.append(report.chronyLine(sharedMemory: unit)) }
    if let path = outputs.pulseChrony { lines.append("refclock SOCK \(path) refid PPS lock NMEA") }
    if let unit = outputs.pulseSharedMemoryUnit { lines.append("refclock SHM \(unit) refid PPS lock NMEA") }
    return lines
  }

  /// What to tell the user once the delay is measured: the delay and the chrony.conf lines
  /// that correct it.
  public func advice(_ report: OffsetReport) -> [String] {
    [report.summary + "."] + chronyConfiguration(report).map { "for chrony.conf: \($0)" }
  }

  /// chrony's samples sent and dropped so far, when there is a chrony socket.
  /// The chrony socket the receiver's time is sent to, if any.
  public var chronySocket: String? { outputs.chrony }

  public var chronyCounts: (sent: Int, dropped: Int)? { chrony.map { ($0.counts.sent, $0.counts.dropped) } }
}

/// An output of the time service that cannot be opened.
public struct ClockFeedError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public var description: String { message }
  public init(message: String) { self.message = message }
}
