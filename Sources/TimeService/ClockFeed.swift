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

    package init(chrony: String? = nil, sharedMemoryUnit: Int? = nil) {
      self.chrony = chrony
      self.sharedMemoryUnit = sharedMemoryUnit
    }
  }

  /// Serial samples measured before the delay is reported: a minute at one a second.
  package static let samplesBeforeReport = 60

  private let outputs: Outputs
  private let chrony: ChronySocket?
  private let sharedMemory: NTPSharedMemory?
  private let meter = Locked(OffsetMeter())

  /// Opens the outputs.
  /// - Throws: a ``ClockFeedError`` naming the output that cannot be opened and why.
  package init(_ outputs: Outputs) throws(ClockFeedError) {
    self.outputs = outputs
    do {
      chrony = try outputs.chrony.map { path throws(Errno) in try ChronySocket(path: path) }
    } catch {
      throw ClockFeedError(message: "cannot make a socket to send chrony samples: \(error).")
    }
    do {
      sharedMemory = try outputs.sharedMemoryUnit.map { unit throws(NTPSharedMemory.Failure) in try NTPSharedMemory(unit: unit) }
    } catch {
      let unit = outputs.sharedMemoryUnit ?? 0
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
    chrony?.send(sample)
    sharedMemory?.write(sample, precision: sample.kind == .pulse ? -20 : -1)
    guard sample.kind == .serial else { return nil }
    return meter.withLock { meter in
      meter.add(sample)
      let report = meter.report
      return report?.count == Self.samplesBeforeReport ? report : nil
    }
  }

  /// What to tell the user once the delay is measured: the delay and the chrony.conf line
  /// that corrects it.
  package func advice(_ report: OffsetReport) -> [String] {
    var lines = [report.summary + "."]
    if let path = outputs.chrony {
      lines.append("for chrony.conf: \(report.chronyLine(socket: path))")
    }
    if let unit = outputs.sharedMemoryUnit {
      lines.append("for chrony.conf: \(report.chronyLine(sharedMemory: unit))")
    }
    if outputs.chrony == nil, outputs.sharedMemoryUnit == nil {
      lines.append("for chrony.conf, with --chrony PATH: \(report.chronyLine(socket: "PATH"))")
    }
    return lines
  }

  /// chrony's samples sent and dropped so far, when there is a chrony socket.
  package var chronyCounts: ChronySocket.State? { chrony?.counts }
}

/// An output of the time service that cannot be opened.
package struct ClockFeedError: Error, Sendable, CustomStringConvertible {
  package var message: String
  package var description: String { message }
}
