import Dispatch
import FoundationEssentials
import NMEA
import Plumbing
import SourceStatus

/// A GPS receiver on a serial device, read through termios.
///
/// - Opens the path the user gave, each time: a `/dev/serial/by-id/…` or udev link keeps
///   working when the kernel renumbers ttyUSB0 to ttyUSB1 on replug.
/// - **Autobaud** tries ``BaudRate/candidates`` in turn, listening
///   `Timing/probeWindow` at each (a 1 Hz receiver sends one burst a second), and settles
///   on the first where two checksummed sentences arrive. Without success after the whole
///   list it reports an error, and keeps trying. On reconnect the rate found is tried first.
/// - **Missing or unplugged** (nothing at the path, or read gives EIO or end of file):
///   `paused` with an error saying so, then it waits for the path to appear (a
///   `DeviceWatcher`: no timer runs meanwhile) and, once it reopens, `resumed`.
/// - **Busy** (another program holds it), or not yet permitted right after it appeared (udev
///   sets permissions a moment later): tried again after `Timing/retryMinimum`, doubling
///   to `Timing/retryMaximum`.
/// - **Silence**: no byte for `Timing/silenceTimeout` on an open port is reported once
///   (a receiver that stopped talking); bytes without one valid sentence for as long mean
///   the wrong rate: autobaud starts over, a fixed rate says so.
/// - **Causes that cannot go away** stop the source with one error (`stopped`): the path is
///   not a serial device, or permission is denied (beyond `Timing/settleTime` after the
///   device appeared), which also reports `authorization(.denied)`.
public struct SerialSource: ByteSource {
  package struct Timing: Hashable, Sendable {
    package var probeWindow: Duration = .milliseconds(1500)
    package var silenceTimeout: Duration = .seconds(5)
    package var retryMinimum: Duration = .milliseconds(50)
    package var retryMaximum: Duration = .seconds(1)
    /// How long after a device appears "permission denied" may still change (udev applying
    /// its rules), and is retried rather than final.
    package var settleTime: Duration = .seconds(2)
    package init() {}
  }

  package let path: String
  package let baudRate: BaudRate
  package let timing: Timing
  /// The clock and timers of its reconnection, autobaud and silence: a test's own clock in tests.
  package let scheduler: Scheduler

  package init(path: String, baudRate: BaudRate = .automatic, timing: Timing, scheduler: Scheduler = .live) {
    self.path = path
    self.baudRate = baudRate
    self.timing = timing
    self.scheduler = scheduler
  }

  /// The receiver at `path`, its rate found by autobaud unless given.
  public init(path: String, baudRate: BaudRate = .automatic) {
    self.init(path: path, baudRate: baudRate, timing: .init())
  }

  public var initialAuthorization: AuthorizationStatus { .notDetermined }

  public func isPresent() async -> Bool { access(path, F_OK) == 0 }

  public func checkAuthorization() async -> AuthorizationStatus {
    do {
      let port = try SerialPort.open(path, baudRate: 9600)
      port.close()
      return .authorizedAlways
    } catch {
      switch error {
      case .permissionDenied: return .denied
      // Busy means another process holds it, not that we may not: still authorized.
      case .deviceBusy: return .authorizedAlways
      default: return .notDetermined
      }
    }
  }

  public func run(for receiver: Receiver) async {
    var knownRate: Int? = if case .fixed(let rate) = baudRate { rate } else { nil }
    let watcher = DeviceWatcher(path: path)
    var seen = watcher.changes
    var appeared: ContinuousClock.Instant?
    // One pipeline and one queue for the source's whole run: what it learns of the receiver
    // survives replugs, and every session reads, writes and ticks on the same queue.
    var pipeline = Pipeline(for: receiver)
    let queue = DispatchQueue(label: "gpsbridge.serial", qos: .userInteractive)
    await runReconnecting(
      for: receiver, now: scheduler.now,
      open: { () throws(SourceError) in
        receiver.publish(.attempt)
        seen = watcher.changes
        return try SerialPort.open(path, baudRate: knownRate ?? BaudRate.candidates[0])
      },
      session: { port in
        switch await read(port, knownRate: &knownRate, pipeline: &pipeline, on: queue, receiver) {
        case .cancelled: return .cancelled
        case .gone(let error, let hadFix):
          return .lost(.deviceLost(path: path, description: error?.description), hadFix: hadFix)
        }
      },
      close: { port in port.close() },
      isPermanent: { error in
        switch error {
        case .notASerialDevice: true
        case .permissionDenied: appeared.map { $0.duration(to: scheduler.now()) >= timing.settleTime } ?? true
        default: false
        }
      },
      wait: { error, failures in
        guard case .noDevice = error else {
          return await scheduler.sleep(backoff(after: failures, minimum: timing.retryMinimum, maximum: timing.retryMaximum))
        }
        guard await watcher.waitForChange(after: seen) else { return false }
        appeared = scheduler.now()
        return true
      })
  }

  /// One session on an open port: until it closes (`gone`) or the task is cancelled.
  private func read(
    _ port: SerialPort, knownRate: inout Int?, pipeline: inout Pipeline, on queue: DispatchQueue, _ receiver: Receiver
  ) async -> Outcome {
    let watch = LineWatch(
      path: path, baudRate: baudRate, knownRate: knownRate,
      timing: LineWatch.Timing(probeWindow: timing.probeWindow, silenceTimeout: timing.silenceTimeout), now: scheduler.now())
    if watch.rate != (knownRate ?? BaudRate.candidates[0]) { try? port.setBaudRate(watch.rate) }
    let reader = PortReader(
      port: port, receiver: receiver, pipeline: pipeline, watch: watch, notice: { [path] in "\(path): NMEA at \($0) baud" },
      queue: queue, scheduler: scheduler)
    let ending = await withTaskCancellationHandler {
      await reader.run()
    } onCancel: {
      Task { await reader.stop() }
    }
    await reader.stop()
    pipeline = reader.finishedPipeline
    knownRate = ending.knownRate
    return Task.isCancelled ? .cancelled : .gone(ending.error, hadFix: ending.hadFix)
  }

  enum Outcome {
    case cancelled
    case gone(Errno?, hadFix: Bool)
  }
}
