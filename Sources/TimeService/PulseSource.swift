import NMEA
import Plumbing
import Transports

/// Where pulse-per-second edges come from, as `serve --pps` names it.
public enum PulseSource: Hashable, Sendable {
  /// A kernel PPS device, `/dev/ppsN`.
  case device(String)
  /// A modem line of the receiver's own serial port, waited on with `TIOCMIWAIT`.
  case modemLine(ModemLine)
  /// Edges on each second of the system clock: for trying the service without hardware (a
  /// simulated receiver's pulse), never for a real clock.
  case simulated

  public enum ModemLine: String, Hashable, Sendable {
    case dcd, cts
  }

  /// `/dev/pps0`, `dcd`, `cts` or `simulated`.
  public init?(parsing text: String) {
    switch text {
    case "dcd": self = .modemLine(.dcd)
    case "cts": self = .modemLine(.cts)
    case "simulated": self = .simulated
    default:
      guard text.hasPrefix("/") else { return nil }
      self = .device(text)
    }
  }
}

/// Reads edges from a ``PulseSource`` on a thread of its own (each wait blocks) and hands
/// them on as they come. A device that goes away (unplugged) is opened again each second
/// until it is back: the service goes on.
package final class PulseReader: Sendable {
  private let stopped = Locked(false)

  /// Starts reading: `edge` is called with each assert edge's system time, `said` with news
  /// for people (the source lost, the source back).
  /// - Throws: ``PPSDevice/Failure`` when the source cannot be opened at all now.
  package init(
    _ source: PulseSource, serialPort: String?, edge: @escaping @Sendable (UTCTimestamp) -> Void,
    said: @escaping @Sendable (String) -> Void
  ) throws(PPSDevice.Failure) {
    let stopped = self.stopped
    let name: String
    let open: @Sendable () throws(PPSDevice.Failure) -> @Sendable () throws(Errno) -> UTCTimestamp?
    switch source {
    case .device(let path):
      name = path
      open = { () throws(PPSDevice.Failure) in
        let device = try PPSDevice(path: path)
        return { () throws(Errno) in try device.nextEdge(timeout: 1)?.time }
      }
    case .modemLine(let line):
      guard let serialPort else {
        throw PPSDevice.Failure(description: "--pps \(line.rawValue) reads the receiver's serial port: name it with --device.")
      }
      name = "\(serialPort)'s \(line.rawValue.uppercased()) line"
      // Blocks until the line changes: after a stop, the thread ends at the next edge.
      open = { () throws(PPSDevice.Failure) in
        let waiter = try ModemLineWaiter(path: serialPort, line: line)
        return { () throws(Errno) in try waiter.nextAssert() }
      }
    case .simulated:
      name = "the simulated pulse"
      open = { () throws(PPSDevice.Failure) in
        return { () throws(Errno) in
          let now = WallClock.now.nanosecondsSince1970
          let wait = (now / 1_000_000_000 + 1) * 1_000_000_000 - now
          var interval = timespec(tv_sec: 0, tv_nsec: Int(wait))
          nanosleep(&interval, nil)
          return WallClock.now
        }
      }
    }
    let first = try open()
    detachThread {
      var next = first
      while !stopped.withLock({ $0 }) {
        do throws(Errno) {
          if let time = try next() { edge(time) }
        } catch {
          said("PPS from \(name) stopped (\(error)); waiting for it to come back.")
          while !stopped.withLock({ $0 }) {
            sleep(1)
            if let reopened = try? open() {
              next = reopened
              said("PPS from \(name) is back.")
              break
            }
          }
        }
      }
    }
  }

  /// Stops reading (a thread blocked in a wait ends after it).
  package func stop() { stopped.withLock { $0 = true } }
}
