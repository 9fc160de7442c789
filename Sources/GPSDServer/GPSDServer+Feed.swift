import GPSD
import GPSLocation
import NMEA
import Plumbing

extension GPSDServer {
  /// Where a served receiver's data comes from.
  public enum Source: Sendable {
    /// A receiver on a serial device (a by-id link keeps working across replugs).
    case serial(path: String, baudRate: BaudRate = .automatic)
    /// A capture, replayed at `speed`, its sentences in step with its fixes.
    case replay(Capture, speed: ReplaySpeed = .realTime)
    /// Another gpsd: its reports, made into fixes and served again (no sentences or bytes).
    case gpsd(host: String, port: Int)
  }

  /// Serves `source` until the task is cancelled or the source ends (a capture's end, a
  /// cause that cannot go away): fixes as TPV, SKY, GST and ATT, the receiver's sentences and
  /// bytes to the clients that watch them, and `DEVICE` notices when it comes and goes.
  /// `report` hears what the source says (errors, pauses, the end), for a status line.
  public func feed(from source: Source, report: @escaping @Sendable (SourceEvent) -> Void = { _ in }) async {
    switch source {
    case .serial(let path, let baudRate):
      let serial = SerialSource(
        path: path, baudRate: baudRate, rawBytes: { [self] bytes in publish(.bytes(bytes)) },
        keepsSatellites: true, onSentence: { [self] sentence in publish(.sentence(sentence)) })
      let bitsPerSecond: Int? = if case .fixed(let rate) = baudRate { rate } else { nil }
      await serial.run { [self] event in relay(event, device: path, bitsPerSecond: bitsPerSecond, report: report) }
    case .replay(let capture, let speed):
      let replay = ReplaySource(
        capture: capture, speed: speed, clock: ContinuousClock(), leadIn: .zero, keepsSatellites: true,
        onSentence: { [self] sentence in
          publish(.sentence(sentence))
          publish(.bytes(sentence + [0x0D, 0x0A]))
        })
      publish(.deviceAppeared(path: capture.description, bitsPerSecond: nil, cycle: 1))
      await replay.run { [self] event in relay(event, device: capture.description, bitsPerSecond: nil, report: report) }
    case .gpsd(let host, let port):
      let address = GPSDAddress(host: host, port: port)
      await GPSDSource(host: host, port: port).run { [self] event in
        relay(event, device: "gpsd://\(address)", bitsPerSecond: nil, report: report)
      }
    }
  }

  private func relay(_ event: SourceEvent, device: String, bitsPerSecond: Int?, report: (SourceEvent) -> Void) {
    switch event {
    case .fix(let fix): publish(.fix(fix))
    case .fixes(let fixes): for fix in fixes { publish(.fix(fix)) }
    case .authorization(.authorizedAlways): publish(.deviceAppeared(path: device, bitsPerSecond: bitsPerSecond, cycle: 1))
    case .paused, .ended, .stopped: publish(.deviceWentAway)
    default: break
    }
    report(event)
  }
}
