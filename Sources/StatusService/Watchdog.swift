import GPSDServer
import Plumbing
import Station
import Transports

/// systemd's watchdog, pinged only while gpsbridge itself is healthy: every receiver's queue
/// turning, time samples going out while a receiver has a fix, the gpsd server's queue
/// turning and listening. A sky without a fix or an unplugged receiver is not gpsbridge's
/// failure, so the pings go on; a stall of its own stops them, and systemd restarts it.
public final class Watchdog: Sendable {
  private let status: StatusServer
  private let gpsd: GPSDServer
  private let station: Station?
  /// Each time feed's samples at the last check, and since when they have stood still while
  /// its receiver had a fix.
  private let samples = Locked<[String: (count: Int, stillSince: ContinuousClock.Instant?)]>([:])

  /// How long a receiver's queue may go without turning (it turns four times a second).
  static let queueStall: Duration = .seconds(3)
  /// How long a feed may send nothing while its receiver has a fix (it sends each second).
  static let sampleStall: Duration = .seconds(10)

  /// A watchdog over what `status` follows, `gpsd` serves and `station` feeds.
  public init(status: StatusServer, gpsd: GPSDServer, station: Station? = nil) {
    self.status = status
    self.gpsd = gpsd
    self.station = station
  }

  /// What is wrong with gpsbridge itself, `nil` when nothing is. Takes up to two seconds
  /// when the server's queue does not answer; no thread waits for it.
  public func problem(now: ContinuousClock.Instant = .now) async -> String? {
    for monitor in status.monitorsNow {
      if let turned = monitor.receiver.lastTurn, turned.duration(to: now) > Self.queueStall {
        return "the queue reading \(monitor.device) has not turned for \(turned.duration(to: now).formatted)"
      }
    }
    if let problem = timeProblem(now: now) { return problem }
    guard await gpsd.isResponsive(within: .seconds(2)) else {
      return "the gpsd server's queue has not turned for 2 s, or it stopped listening"
    }
    return nil
  }

  /// A feed that has sent nothing for ``sampleStall`` while its receiver had a fix.
  private func timeProblem(now: ContinuousClock.Instant) -> String? {
    guard let station else { return nil }
    let fixes = Dictionary(status.monitorsNow.map { ($0.device, $0.hasRecentFix(now: now)) }, uniquingKeysWith: { $0 || $1 })
    return samples.withLock { samples in
      var problem: String?
      for (device, feed) in station.clockFeeds {
        guard let counts = feed.chronyCounts, feed.state.feeding else {
          samples[device] = nil
          continue
        }
        let count = counts.sent + counts.dropped
        let before = samples[device]
        let hasFix = fixes[device] ?? false
        var stillSince: ContinuousClock.Instant?
        if let before, before.count == count, hasFix { stillSince = before.stillSince ?? now }
        samples[device] = (count, stillSince)
        if let stillSince, stillSince.duration(to: now) > Self.sampleStall {
          problem = "no time sample from \(device) for \(stillSince.duration(to: now).formatted) while it has a fix"
        }
      }
      return problem
    }
  }

  /// Pings through `notify` (systemd's `WATCHDOG=1`) every `interval` while ``problem(now:)``
  /// finds nothing, until the task is cancelled; says a problem once through `said` when the
  /// pings stop, and once when they resume.
  public func run(
    every interval: Duration, notify: @escaping @Sendable (String) -> Void, said: @escaping @Sendable (String) -> Void
  ) async {
    var stopped = false
    while await sleepUnlessCancelled(interval) {
      if let problem = await problem() {
        if !stopped { said("gpsbridge: the watchdog is not pinged: \(problem).") }
        stopped = true
      } else {
        if stopped { said("gpsbridge: healthy again: the watchdog is pinged.") }
        stopped = false
        notify("WATCHDOG=1")
      }
    }
  }
}

extension Duration {
  /// Seconds with one decimal, for people.
  fileprivate var formatted: String {
    let (seconds, attoseconds) = components
    return "\(((Double(seconds) + Double(attoseconds) / 1e18) * 10).rounded() / 10) s"
  }
}
