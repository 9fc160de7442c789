import FoundationEssentials
import NMEA
import Plumbing

/// A GPS receiver on a serial device, read through termios.
///
/// - Opens the path the user gave, each time: a `/dev/serial/by-id/…` or udev link keeps
///   working when the kernel renumbers ttyUSB0 to ttyUSB1 on replug.
/// - **Autobaud** tries ``BaudRate/candidates`` in turn, listening
///   ``Timing/probeWindow`` at each (a 1 Hz receiver sends one burst a second), and settles
///   on the first where two checksummed sentences arrive. Without success after the whole
///   list it reports an error, and keeps trying. On reconnect the rate found is tried first.
/// - **Missing or unplugged** (nothing at the path, or read gives EIO or end of file):
///   `paused` with an error saying so, then it waits for the path to appear (a
///   ``DeviceWatcher``: no timer runs meanwhile) and, once it reopens, `resumed`.
/// - **Busy** (another program holds it), or not yet permitted right after it appeared (udev
///   sets permissions a moment later): tried again after ``Timing/retryMinimum``, doubling
///   to ``Timing/retryMaximum``.
/// - **Silence**: no byte for ``Timing/silenceTimeout`` on an open port is reported once
///   (a receiver that stopped talking); bytes without one valid sentence for as long mean
///   the wrong rate: autobaud starts over, a fixed rate says so.
/// - **Causes that cannot go away** stop the source with one error (`stopped`): the path is
///   not a serial device, or permission is denied (beyond ``Timing/settleTime`` after the
///   device appeared), which also reports `authorization(.denied)`.
package struct SerialSource: FixSource {
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
  /// Told of progress worth a line on a terminal ("NMEA at 9600 baud").
  package let onNotice: @Sendable (String) -> Void
  /// Given every byte read once the baud rate is settled, for recording a capture.
  package let rawBytes: (@Sendable ([UInt8]) -> Void)?
  /// Called before each attempt to open the device: tests count the wake-ups with it.
  package let onAttempt: (@Sendable () -> Void)?
  /// Where the counts of rejected input go, for a status line.
  package let rejects: RejectedInput?
  /// Whether fixes carry the satellites in view (a gpsd's SKY reports need them).
  package let keepsSatellites: Bool
  /// Given every sentence framed once the baud rate is settled, before the fix it joins (for
  /// passing them on, as a gpsd does).
  package let onSentence: (@Sendable ([UInt8]) -> Void)?

  package init(
    path: String, baudRate: BaudRate = .automatic, timing: Timing = .init(),
    onNotice: @escaping @Sendable (String) -> Void = { _ in }, rawBytes: (@Sendable ([UInt8]) -> Void)? = nil,
    onAttempt: (@Sendable () -> Void)? = nil, rejects: RejectedInput? = nil, keepsSatellites: Bool = false,
    onSentence: (@Sendable ([UInt8]) -> Void)? = nil
  ) {
    self.keepsSatellites = keepsSatellites
    self.onSentence = onSentence
    self.path = path
    self.baudRate = baudRate
    self.timing = timing
    self.onNotice = onNotice
    self.rawBytes = rawBytes
    self.onAttempt = onAttempt
    self.rejects = rejects
  }

  package var initialAuthorization: AuthorizationStatus { .notDetermined }

  package func isPresent() async -> Bool { access(path, F_OK) == 0 }

  package func checkAuthorization() async -> AuthorizationStatus {
    do {
      let port = try SerialPort.open(path, baudRate: 9600)
      port.close()
      return .authorizedAlways
    } catch {
      switch error.reason {
      case .permissionDenied: return .denied
      // Busy means another process holds it, not that we may not: still authorized.
      case .deviceBusy: return .authorizedAlways
      default: return .notDetermined
      }
    }
  }

  package func run(_ deliver: @escaping @Sendable (SourceEvent) async -> Void) async {
    var knownRate: Int? = if case .fixed(let rate) = baudRate { rate } else { nil }
    let watcher = DeviceWatcher(path: path)
    var seen = watcher.changes
    var appeared: ContinuousClock.Instant?
    await runReconnecting(
      deliver: deliver,
      open: { () throws(LocationManager.Error) in
        onAttempt?()
        seen = watcher.changes
        return try SerialPort.open(path, baudRate: knownRate ?? BaudRate.candidates[0])
      },
      session: { port, deliver in
        switch await read(port, knownRate: &knownRate, deliver) {
        case .cancelled: return .cancelled
        case .gone(let error):
          return .lost(.init(.deviceLost(path: path, description: error?.description)))
        }
      },
      close: { port in port.close() },
      isPermanent: { error in
        switch error.reason {
        case .notASerialDevice: true
        case .permissionDenied: appeared.map { $0.duration(to: .now) >= timing.settleTime } ?? true
        default: false
        }
      },
      wait: { error, failures in
        guard case .noDevice = error.reason else {
          return await sleepUnlessCancelled(backoff(after: failures, minimum: timing.retryMinimum, maximum: timing.retryMaximum))
        }
        guard await watcher.waitForChange(after: seen) else { return false }
        appeared = .now
        return true
      })
  }

  enum Outcome {
    case cancelled
    case gone(Errno?)
  }

  private func read(_ port: SerialPort, knownRate: inout Int?, _ deliver: @escaping @Sendable (SourceEvent) async -> Void) async -> Outcome
  {
    let (events, continuation) = AsyncStream.makeStream(of: PortReader.Event.self, bufferingPolicy: .bufferingNewest(256))
    let reader = PortReader(port: port, source: self, defaultDate: .today, continuation: continuation)
    reader.start()

    let automatic = baudRate == .automatic
    var candidates = BaudRate.candidates
    if let knownRate, automatic { candidates = [knownRate] + candidates.filter { $0 != knownRate } }
    if !automatic, let knownRate { candidates = [knownRate] }
    var index = 0
    var probing = automatic
    var probeStart = ContinuousClock.now
    let started = ContinuousClock.now
    var silenceReported = false
    var garbageReported = false
    if automatic, candidates[0] != (knownRate ?? BaudRate.candidates[0]) { try? port.setBaudRate(candidates[0]) }
    if !probing { reader.forwardBytes(true) }

    /// Keeps the rate being tried: a fix, or two sentences, prove it.
    func settle() {
      probing = false
      reader.forwardBytes(true)
      knownRate = candidates[index]
      onNotice("\(path): NMEA at \(candidates[index]) baud")
    }
    /// Tries `candidates[next]` from `now` on, with the decoder and its counters afresh.
    func probe(_ next: Int, from now: ContinuousClock.Instant) {
      index = next
      try? port.setBaudRate(candidates[index])
      reader.reset()
      probeStart = now
    }

    let outcome: Outcome = await withTaskCancellationHandler {
      for await event in events {
        switch event {
        case .fix(let fix):
          if probing { settle() }  // A fix proves the rate.
          await deliver(.fix(fix))
        case .closed(let error):
          return .gone(error)
        case .tick(let counters):
          let now = ContinuousClock.now
          if probing {
            if counters.sentences >= 2 {
              settle()
            } else if probeStart.duration(to: now) >= timing.probeWindow {
              if index + 1 == candidates.count {
                await deliver(.failed(.init(.noNMEAAtAnyRate(path: path, seconds: Int(started.duration(to: now).components.seconds)))))
              }
              probe((index + 1) % candidates.count, from: now)
            }
            continue
          }
          let quiet = counters.lastByte.map { $0.duration(to: now) } ?? probeStart.duration(to: now)
          if quiet >= timing.silenceTimeout {
            if !silenceReported {
              silenceReported = true
              await deliver(.failed(.init(.silentDevice(path: path, seconds: Int(timing.silenceTimeout.components.seconds)))))
            }
          } else {
            silenceReported = false
          }
          let sinceSentence = counters.lastSentence.map { $0.duration(to: now) } ?? started.duration(to: now)
          if counters.lastByte != nil, quiet < timing.silenceTimeout, sinceSentence >= timing.silenceTimeout {
            if automatic {
              // Bytes but no sentences: the receiver changed rate, or we settled wrongly.
              probing = true
              reader.forwardBytes(false)
              knownRate = nil
              probe(0, from: now)
            } else if !garbageReported {
              garbageReported = true
              await deliver(.failed(.init(.noNMEAAtRate(path: path, seconds: Int(timing.silenceTimeout.components.seconds)))))
            }
          }
        }
      }
      return .cancelled
    } onCancel: {
      Task { await reader.stop() }
    }
    await reader.stop()
    return Task.isCancelled ? .cancelled : outcome
  }
}
