import Framing
import NMEA
import Plumbing
import SourceStatus
import Transports

/// Follows one receiver for the status page: a listener of its fixes (with their sky) and its
/// status, on the receiver's queue, keeping the little the page needs under a lock. Its work
/// an epoch is a few assignments and a histogram count.
final class ReceiverMonitor: Sendable {
  let device: String
  let receiver: Receiver
  private let state = Locked(State())
  private let listener: Receiver.Listener

  private struct State {
    var fix: Fix?
    var epochs = 0
    var lastEpoch: ContinuousClock.Instant?
    /// The receiver's times of its latest epochs (nanoseconds since midnight), and the bytes
    /// read by each: the rate and the bytes an epoch.
    var times: [Int64] = []
    var bytesAt: [Int] = []
    var latency = LatencyHistogram()
    var state = "waiting for the receiver"
    var integrity: SignalIntegrity?
  }

  /// Epochs remembered for the rate and the bytes an epoch.
  static let window = 11

  init(_ receiver: Receiver, device: String) {
    self.device = device
    self.receiver = receiver
    let state = self.state
    // An observer: the page follows the receiver without keeping its device open.
    listener = receiver.observe(wanting: [.fixes, .satellites]) { [receiver] event in
      switch event {
      case .fix(let fix):
        // After the listeners before this one (the gpsd server's): the report has gone out.
        let latency = fix.arrivalUptime.map { WallClock.uptime - $0 }
        let bytes = receiver.tally.bytes
        state.withLock { state in
          state.fix = fix
          state.epochs += 1
          state.lastEpoch = .now
          state.state = "reading"
          if let latency {
            let (seconds, attoseconds) = latency.components
            state.latency.observe(Double(seconds) + Double(attoseconds) / 1e18)
          }
          if let last = state.times.last, fix.time.nanosecondsSinceMidnight < last || bytes < (state.bytesAt.last ?? 0) {
            state.times.removeAll()  // a new day, or a capture's loop (which counts afresh)
            state.bytesAt.removeAll()
          }
          state.times.append(fix.time.nanosecondsSinceMidnight)
          state.bytesAt.append(bytes)
          if state.times.count > Self.window {
            state.times.removeFirst()
            state.bytesAt.removeFirst()
          }
        }
      case .status(let status):
        let said: String? =
          switch status {
          case .authorization(.authorizedAlways), .resumed: "reading"
          case .paused(let error): "paused: \(error.message)"
          case .failed(let error): "failing: \(error.message)"
          case .ended(let error), .stopped(let error): "ended: \(error.message)"
          default: nil
          }
        if let said { state.withLock { $0.state = said } }
      case .integrity(let integrity):
        state.withLock { $0.integrity = integrity }
      default: break
      }
    }
  }

  func stop() { receiver.stopListening(listener) }

  /// Whether the latest epoch, a few seconds old at most, had a position.
  func hasRecentFix(now: ContinuousClock.Instant) -> Bool {
    state.withLock { state in
      guard let fix = state.fix, fix.hasPosition, let last = state.lastEpoch else { return false }
      return last.duration(to: now) < .seconds(3)
    }
  }

  /// The receiver now.
  func status(now: ContinuousClock.Instant = .now) -> ReceiverStatus {
    let tally = receiver.tally
    let baud = receiver.lineSpeed
    let state = self.state.withLock { $0 }
    let rate = Self.rate(state.times)
    var bytesPerEpoch: Double?
    if state.bytesAt.count >= 2, let first = state.bytesAt.first, let last = state.bytesAt.last {
      bytesPerEpoch = Double(last - first) / Double(state.bytesAt.count - 1)
    }
    // 10 bits a byte on an 8N1 line.
    let link = baud.flatMap { baud in rate.map { Double(baud) / 10 / $0 } }
    let satellites = (state.fix?.satellites ?? []).map { satellite in
      SatelliteStatus(
        constellation: satellite.constellation?.rawValue ?? "unknown", prn: satellite.number, elevation: satellite.elevation,
        azimuth: satellite.azimuth, snr: satellite.snr, used: satellite.isUsed)
    }
    return ReceiverStatus(
      device: device, state: state.state, protocols: tally.protocols, baud: baud, rate: rate, epochs: state.epochs,
      bytes: tally.bytes, sentences: tally.sentences, ubxFrames: tally.ubxFrames, rtcm3Frames: tally.rtcm3Frames,
      bytesPerEpoch: bytesPerEpoch, linkBytesPerEpoch: link, rejects: tally.rejects,
      lastEpochAge: state.lastEpoch.map { Self.seconds($0.duration(to: now)) }, fix: state.fix.map(Self.status),
      satellites: satellites, latency: state.latency, integrity: state.integrity.map(Self.status))
  }

  static func status(of integrity: SignalIntegrity) -> IntegrityStatus {
    func from(_ source: SignalIntegrity.Source?) -> String { source.map { " (\($0.rawValue))" } ?? "" }
    var alarms: [String] = []
    var warnings: [String] = []
    if integrity.spoofing == .indicated || integrity.spoofing == .affirmed {
      alarms.append("spoofing \(integrity.spoofing)" + from(integrity.spoofingSource))
    }
    if integrity.jamming == .critical { alarms.append("jamming critical" + from(integrity.jammingSource)) }
    if integrity.jamming == .warning { warnings.append("jamming warning" + from(integrity.jammingSource)) }
    if integrity.antenna == .short { alarms.append("antenna short" + from(integrity.antennaSource)) }
    if integrity.antenna == .open { warnings.append("antenna open" + from(integrity.antennaSource)) }
    return IntegrityStatus(
      jamming: "\(integrity.jamming)", jammingSource: integrity.jammingSource?.rawValue, spoofing: "\(integrity.spoofing)",
      spoofingSource: integrity.spoofingSource?.rawValue, antenna: "\(integrity.antenna)", antennaSource: integrity.antennaSource?.rawValue,
      jammingIndicator: integrity.jammingIndicator, alarms: alarms, warnings: warnings)
  }

  /// Epochs a second: one over the median step between the receiver's times.
  static func rate(_ times: [Int64]) -> Double? {
    let steps = zip(times, times.dropFirst()).map { $1 - $0 }.filter { $0 > 0 && $0 <= 10_000_000_000 }.sorted()
    guard !steps.isEmpty else { return nil }
    let median = Double(steps[steps.count / 2]) / 1e9
    return (1 / median * 100).rounded() / 100
  }

  static func status(of fix: Fix) -> FixStatus {
    FixStatus(
      mode: fix.mode == .threeD ? "3D" : fix.mode == .twoD ? "2D" : "none", quality: fix.quality.name,
      time: fix.timestamp?.description, latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitude,
      horizontalAccuracy: fix.horizontalAccuracy, verticalAccuracy: fix.verticalAccuracy, speed: fix.speed, course: fix.course,
      satellitesUsed: fix.satellitesUsed, hdop: fix.hdop)
  }

  static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
