import NMEA
import Plumbing
import Transports

/// Feeds one receiver's time samples to the reference clocks it was given, and measures its
/// NMEA delay: what `gpsbridge serve --chrony … --ntp-shm …` runs beside the server.
package final class ClockFeed: Sendable {
  /// Where the samples go.
  package struct Outputs: Sendable {
    /// chrony's SOCK refclock socket for the serial (NMEA) time.
    package var chrony: String?
    /// The NTP shared-memory unit for the serial time.
    package var sharedMemoryUnit: Int?
    /// Whether pulses (PPS) are fed too: to their own refclocks, ``pulseChrony`` and
    /// ``pulseSharedMemoryUnit``, since chrony and ntpd weigh the two as two clocks.
    package var pulses: Bool

    package init(chrony: String? = nil, sharedMemoryUnit: Int? = nil, pulses: Bool = false) {
      self.chrony = chrony
      self.sharedMemoryUnit = sharedMemoryUnit
      self.pulses = pulses
    }

    /// The outputs of one of several receivers, numbered from 0 in the order they are
    /// served: the socket takes the device's name before `.sock` (`/run/chrony.sock` and
    /// `/dev/ttyUSB1` → `/run/chrony.ttyUSB1.sock`, as gpsd names its `chrony.<dev>.sock`), the
    /// shared-memory units go two by two (the receiver's NMEA time at unit + 2 × number, its
    /// pulses at the next), as gpsd numbers its devices'.
    package func receiver(named device: String, number: Int) -> Outputs {
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
    package var pulseChrony: String? {
      guard pulses, let chrony else { return nil }
      return chrony.hasSuffix(".sock") ? String(chrony.dropLast(5)) + "-pps.sock" : chrony + "-pps"
    }

    /// The PPS refclock's shared-memory unit: the one after the serial one.
    package var pulseSharedMemoryUnit: Int? {
      guard pulses, let sharedMemoryUnit else { return nil }
      return sharedMemoryUnit + 1
    }
  }

  /// Serial samples measured before the delay is reported: a minute at one a second.
  package static let samplesBeforeReport = 60

  private let outputs: Outputs
  private let chrony: ChronySocket?
  private let sharedMemory: NTPSharedMemory?
  private let pulseChrony: ChronySocket?
  private let pulseSharedMemory: NTPSharedMemory?
  private let meter: Locked<OffsetMeter>
  /// The latest pulse, whose second a serial sample of the same second is measured against.
  private let lastPulse = Locked<TimeSample?>(nil)

  /// Opens the outputs.
  /// - Throws: a ``ClockFeedError`` naming the output that cannot be opened and why.
  package init(_ outputs: Outputs) throws(ClockFeedError) {
    self.outputs = outputs
    meter = Locked(OffsetMeter(against: outputs.pulses ? "PPS" : "the system clock"))
    chrony = try Self.socket(outputs.chrony)
    pulseChrony = try Self.socket(outputs.pulseChrony)
    sharedMemory = try Self.segment(outputs.sharedMemoryUnit)
    pulseSharedMemory = try Self.segment(outputs.pulseSharedMemoryUnit)
  }

  private static func socket(_ path: String?) throws(ClockFeedError) -> ChronySocket? {
    guard let path else { return nil }
    do {
      return try ChronySocket(path: path)
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

  /// The delay measured so far.
  package var report: OffsetReport? { meter.withLock { $0.report } }

  /// Takes one sample: sends it on, measures it. Returns the report the moment it is first
  /// due (after ``samplesBeforeReport`` serial samples).
  @discardableResult
  package func take(_ sample: TimeSample) -> OffsetReport? {
    switch sample.kind {
    case .pulse:
      pulseChrony?.send(sample)
      pulseSharedMemory?.write(sample, precision: -20)
      lastPulse.withLock { $0 = sample }
      return nil
    case .serial:
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

  /// The chrony.conf lines for the refclocks fed, with `report`'s offset.
  package func chronyConfiguration(_ report: OffsetReport) -> [String] {
    var lines: [String] = []
    if let path = outputs.chrony { lines.append(report.chronyLine(socket: path)) }
    if let unit = outputs.sharedMemoryUnit { lines.append(report.chronyLine(sharedMemory: unit)) }
    if let path = outputs.pulseChrony { lines.append("refclock SOCK \(path) refid PPS lock NMEA") }
    if let unit = outputs.pulseSharedMemoryUnit { lines.append("refclock SHM \(unit) refid PPS lock NMEA") }
    return lines
  }

  /// What to tell the user once the delay is measured: the delay and the chrony.conf lines
  /// that correct it.
  package func advice(_ report: OffsetReport) -> [String] {
    [report.summary + "."] + chronyConfiguration(report).map { "for chrony.conf: \($0)" }
  }

  /// chrony's samples sent and dropped so far, when there is a chrony socket.
  package var chronyCounts: ChronySocket.State? { chrony?.counts }
}

/// An output of the time service that cannot be opened.
package struct ClockFeedError: Error, Sendable, CustomStringConvertible {
  package var message: String
  package var description: String { message }
  package init(message: String) { self.message = message }
}
