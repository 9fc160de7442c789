import FoundationEssentials
import NMEA
import NMEASimulation
import Plumbing
import SourceStatus

/// Replays a capture through the receiver's ``Pipeline``, paced by the fixes' own times.
///
/// The first fix goes out at once; each later one, with the sentences and bytes that made it,
/// when `clock` has advanced by its time since the first, divided by the speed. Replays read
/// in 64 KiB pieces and wait for listeners that have queues of their own (see
/// ``Receiver/waitForListeners()``), so memory stays small whatever the file's size. At the
/// end it reports ``SourceEvent/ended(_:)`` with a summary. Each run plays the capture from
/// its beginning.
public struct ReplaySource<C: Clock>: ByteSource where C.Duration == Duration {
  public let capture: Capture
  public let speed: ReplaySpeed
  public let clock: C

  public init(capture: Capture, speed: ReplaySpeed = .realTime, clock: C) {
    self.capture = capture
    self.speed = speed
    self.clock = clock
  }

  public var initialAuthorization: AuthorizationStatus { .authorizedAlways }

  /// A replay waits for its listeners instead of dropping their events.
  public var prefersLosslessDelivery: Bool { true }

  public func isPresent() async -> Bool {
    switch capture {
    case .file("-"), .bytes, .simulated: true
    case .file(let path): access(path, R_OK) == 0
    }
  }

  public func checkAuthorization() async -> AuthorizationStatus {
    guard case .file(let path) = capture, path != "-" else { return .authorizedAlways }
    return access(path, R_OK) == 0 || errno != EACCES ? .authorizedAlways : .denied
  }

  public func run(for receiver: Receiver) async {
    var pipeline = Pipeline(for: receiver, defaultDate: WallClock.today)
    var pacer = Pacer(speed: speed, clock: clock)
    var fixes = 0

    /// Releases every fix the bytes so far complete, each when it is due.
    func drain() async -> Bool {
      while let fix = pipeline.nextFix(for: receiver) {
        guard await pacer.wait(for: fix) else { return false }
        fixes += 1
        pipeline.release(fix, for: receiver)
        await receiver.waitForListeners()
        if Task.isCancelled { return false }
      }
      return true
    }

    switch capture {
    case .simulated(let simulation):
      // Epochs in batches of about 64 KiB, as a file would be read.
      var piece = simulation.header
      for epoch in simulation.epochs() {
        piece += epoch.bytes
        if piece.count >= 65_536 {
          pipeline.append(piece, for: receiver)
          piece.removeAll(keepingCapacity: true)
          guard await drain() else { return }
        }
      }
      pipeline.append(piece, for: receiver)
      guard await drain() else { return }
    case .bytes(let bytes, _):
      var start = 0
      while start < bytes.count {
        let end = min(bytes.count, start + 65_536)
        pipeline.append(bytes[start..<end], for: receiver)
        guard await drain() else { return }
        start = end
      }
    case .file(let path):
      let descriptor: FileDescriptor
      do {
        descriptor = try FileDescriptor.openForReading(path)
      } catch {
        receiver.publish(
          .status(.stopped(.captureUnreadable(path: path, description: error.description, denied: error == .permissionDenied))))
        return
      }
      defer { if path != "-" { try? descriptor.close() } }
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count: Int
        do {
          count = try descriptor.read(into: &buffer)
        } catch {
          receiver.publish(.status(.stopped(.captureUnreadable(path: capture.description, description: error.description, denied: false))))
          return
        }
        if count == 0 { break }
        pipeline.append(buffer[0..<count], for: receiver)
        guard await drain() else { return }
      }
    }
    pipeline.finishAppending()
    guard await drain() else { return }
    pipeline.release(nil, for: receiver)
    let counters = pipeline.decoder.framer.counters
    var summary = "End of capture \(capture): \(fixes) fixes from \(counters.sentences) sentences"
    let skipped = pipeline.rejected
    if skipped > 0 { summary += ", \(skipped) skipped" }
    receiver.publish(.status(.ended(.endOfCapture(summary: summary + "."))))
  }
}
