import FoundationEssentials
import NMEA
import NMEASimulation
import Plumbing

/// Replays a capture through the NMEA pipeline, paced by the fixes' own times.
///
/// The first fix goes out at once; each later one when `clock` has advanced by its time
/// since the first, divided by the speed. At ``ReplaySpeed/unlimited`` the fixes of each
/// piece read go to the manager together, in one ``SourceEvent/fixes(_:)``. Replays read in
/// 64 KiB pieces and wait for the manager to take their fixes, so memory stays small
/// whatever the file's size. At the end it reports ``SourceEvent/ended(_:)`` with a summary.
/// Each time the manager starts the source the capture plays from its beginning.
package struct ReplaySource<C: Clock>: FixSource where C.Duration == Duration {
  package let capture: Capture
  package let speed: ReplaySpeed
  package let clock: C
  /// How long the replay waits before its first byte. A manager starts its source on the
  /// first command that needs it; with a lead-in, the commands that follow at once (more
  /// regions, visits) land before the first fix, so a replay yields the same actions every
  /// time. Callers that give all their commands in one step (the command line) need none.
  package let leadIn: Duration
  /// Whether fixes carry the satellites in view (a gpsd's SKY reports need them).
  package let keepsSatellites: Bool
  /// Told every sentence of the capture (without its line end), each just before the fix it
  /// belongs to is delivered, so it keeps the replay's pace (a gpsd passes sentences on).
  package let onSentence: (@Sendable ([UInt8]) async -> Void)?

  package init(
    capture: Capture, speed: ReplaySpeed = .realTime, clock: C, leadIn: Duration = .milliseconds(100), keepsSatellites: Bool = false,
    onSentence: (@Sendable ([UInt8]) async -> Void)? = nil
  ) {
    self.capture = capture
    self.speed = speed
    self.clock = clock
    self.leadIn = leadIn
    self.keepsSatellites = keepsSatellites
    self.onSentence = onSentence
  }

  package var initialAuthorization: AuthorizationStatus { .authorizedAlways }

  /// A replay waits for its subscribers instead of dropping their actions.
  package var prefersLosslessDelivery: Bool { true }

  package func isPresent() async -> Bool {
    switch capture {
    case .file("-"), .bytes, .simulated: true
    case .file(let path): access(path, R_OK) == 0
    }
  }

  package func checkAuthorization() async -> AuthorizationStatus {
    guard case .file(let path) = capture, path != "-" else { return .authorizedAlways }
    return access(path, R_OK) == 0 || errno != EACCES ? .authorizedAlways : .denied
  }

  package func run(_ deliver: @escaping @Sendable (SourceEvent) async -> Void) async {
    if leadIn > .zero {
      do {
        try await clock.sleep(for: leadIn)
      } catch {
        return
      }
    }
    var decoder = FixDecoder(defaultDate: .today, keepsSatellites: keepsSatellites)
    var pacer = Pacer(speed: speed, clock: clock)
    var fixes = 0
    var ready: [Fix] = []
    // The sentences read since the last fix went out, when someone wants them.
    var sentences: [[UInt8]] = []
    let keepsSentences = onSentence != nil

    func nextFix() -> Fix? {
      guard keepsSentences else { return decoder.next() }
      return decoder.next { sentences.append(Array($0.bytes)) }
    }

    func passSentences() async {
      guard let onSentence, !sentences.isEmpty else { return }
      for sentence in sentences { await onSentence(sentence) }
      sentences.removeAll(keepingCapacity: true)
    }

    func drain() async -> Bool {
      if speed == .unlimited {
        while let fix = nextFix() { ready.append(fix) }
        await passSentences()
        guard !ready.isEmpty else { return !Task.isCancelled }
        fixes += ready.count
        await deliver(.fixes(ready))
        ready.removeAll(keepingCapacity: true)
        return !Task.isCancelled
      }
      while let fix = nextFix() {
        guard await pacer.wait(for: fix) else { return false }
        fixes += 1
        await passSentences()
        await deliver(.fix(fix))
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
          decoder.append(piece)
          piece.removeAll(keepingCapacity: true)
          guard await drain() else { return }
        }
      }
      decoder.append(piece)
      guard await drain() else { return }
    case .bytes(let bytes, _):
      var start = 0
      while start < bytes.count {
        let end = min(bytes.count, start + 65_536)
        decoder.append(bytes[start..<end])
        guard await drain() else { return }
        start = end
      }
    case .file(let path):
      let descriptor: FileDescriptor
      do {
        descriptor = try FileDescriptor.openForReading(path)
      } catch {
        await deliver(.stopped(.init(.captureUnreadable(path: path, description: error.description, denied: error == .permissionDenied))))
        return
      }
      defer { if path != "-" { try? descriptor.close() } }
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count: Int
        do {
          count = try descriptor.read(into: &buffer)
        } catch {
          await deliver(.stopped(.init(.captureUnreadable(path: capture.description, description: error.description, denied: false))))
          return
        }
        if count == 0 { break }
        decoder.append(buffer[0..<count])
        guard await drain() else { return }
      }
    }
    decoder.finish()
    guard await drain() else { return }
    await passSentences()
    let counters = decoder.framer.counters
    var summary = "End of capture \(capture): \(fixes) fixes from \(counters.sentences) sentences"
    let skipped = counters.badChecksum + counters.malformed + counters.overlong + counters.missingChecksum + decoder.decodeErrors
    if skipped > 0 { summary += ", \(skipped) skipped" }
    await deliver(.ended(.init(.endOfCapture(summary: summary + "."))))
  }
}
