import FoundationEssentials
import GPSD
import NMEA
import NMEASimulation
import Plumbing
import SourceStatus

/// Replays a capture, NMEA or a gpsd JSON log, through the receiver, paced by the fixes' own
/// times.
///
/// The first fix goes out at once; each later one, with the sentences and bytes that made it,
/// when `clock` has advanced by its time since the first, divided by the speed. Replays read
/// in 64 KiB pieces and wait for listeners that have queues of their own (see
/// `Receiver/waitForListeners()`), so memory stays small whatever the file's size. At the
/// end it reports ``SourceEvent/ended(_:)`` with a summary, or, when it `loops`, says so in a
/// notice and plays it again from its beginning until the run is cancelled. Each run plays
/// the capture from its beginning.
public struct ReplaySource<C: Clock>: ByteSource where C.Duration == Duration {
  public let capture: Capture
  public let speed: ReplaySpeed
  public let clock: C
  /// Whether the capture starts over at its end (standard input cannot: it is read once).
  public let loops: Bool

  public init(capture: Capture, speed: ReplaySpeed = .realTime, loops: Bool = false, clock: C) {
    self.capture = capture
    self.speed = speed
    self.loops = loops && capture != .file("-")
    self.clock = clock
  }

  public var initialAuthorization: AuthorizationStatus { .authorizedAlways }

  /// A replay waits for its listeners instead of dropping their events.
  public var prefersLosslessDelivery: Bool { true }
  public var isSimulated: Bool { true }

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
    var round = 1
    while let summary = await play(for: receiver) {
      guard loops, !Task.isCancelled else {
        receiver.publish(.status(.ended(.endOfCapture(summary: "End of capture \(capture): \(summary)."))))
        return
      }
      round += 1
      receiver.publish(.notice("End of capture \(capture): \(summary); playing it again from its beginning (round \(round))."))
    }
  }

  /// Plays the capture once: its summary at the end, or `nil` when the play stopped before it
  /// (cancelled, or a failure already said).
  private func play(for receiver: Receiver) async -> String? {
    // Opened (again): its times start over, as a device's do when it is opened again (a looped
    // replay's next round, a replay started again when a manager wants locations again).
    receiver.publish(.attempt)
    var pieces: CapturePieces
    do {
      pieces = try CapturePieces(capture)
    } catch {
      receiver.publish(.status(.stopped(error)))
      return nil
    }
    defer { pieces.close() }
    var player = CapturePlayer(receiver: receiver, pacer: Pacer(speed: speed, clock: clock))
    var bytes = 0
    while true {
      let piece: [UInt8]?
      do {
        piece = try await pieces.next()
      } catch {
        await player.published()
        receiver.publish(.status(.stopped(error)))
        return nil
      }
      guard let piece else { break }
      bytes += piece.count
      guard await player.play(piece) else {
        await player.published()
        return nil
      }
    }
    // A play stopped before its end (a reader cancelled mid-read ends the pieces early) has
    // not seen the whole capture: it says nothing of what the capture holds.
    guard !Task.isCancelled, await player.finish() else {
      await player.published()
      return nil
    }
    guard let summary = player.summary else {
      receiver.publish(.status(.stopped(.captureHasNoData(path: capture.description, bytes: bytes))))
      return nil
    }
    return summary
  }
}

/// A capture's bytes, in pieces of about 64 KiB, so memory stays small whatever its size.
struct CapturePieces {
  private let capture: Capture
  private var file: CaptureFileReader?
  private var offset = 0
  private var epochs: Simulation.Epochs.Iterator?

  init(_ capture: Capture) throws(SourceError) {
    self.capture = capture
    switch capture {
    case .file(let path):
      do throws(Errno) {
        let descriptor = try FileDescriptor.openForReading(path)
        // A directory opens, but never becomes readable to a read source: said at once.
        var status = stat()
        if fstat(descriptor.rawValue, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
          if path != "-" { try? descriptor.close() }
          throw Errno.isDirectory
        }
        file = CaptureFileReader(descriptor, closesDescriptor: path != "-")
      } catch {
        throw .captureUnreadable(path: path, description: error.description, denied: error == .permissionDenied)
      }
    case .simulated(let simulation):
      epochs = simulation.epochs().makeIterator()
    case .bytes:
      break
    }
  }

  /// The next piece, or `nil` at the end (or when the task is cancelled).
  mutating func next() async throws(SourceError) -> [UInt8]? {
    switch capture {
    case .simulated(let simulation):
      // Epochs in batches of about 64 KiB, as a file would be read.
      var piece = offset == 0 ? simulation.header : []
      offset = 1
      while piece.count < 65_536, let epoch = epochs?.next() { piece += epoch.sent }
      return piece.isEmpty ? nil : piece
    case .bytes(let bytes, _):
      guard offset < bytes.count else { return nil }
      let end = min(bytes.count, offset + 65_536)
      defer { offset = end }
      return Array(bytes[offset..<end])
    case .file:
      do {
        return try await file?.next()
      } catch {
        throw .captureUnreadable(path: capture.description, description: error.description, denied: false)
      }
    }
  }

  /// Lets go of the file, whether or not it was read to its end.
  func close() {
    file?.close()
  }
}

/// Plays a capture's pieces through the receiver, line by line by kind (``CaptureLines``):
/// NMEA through the receiver's ``Pipeline``, gpsd's JSON reports through a
/// ``GPSDStreamDecoder``, each fix when its time has come (at ``ReplaySpeed/max``, each
/// piece's at once). A capture that holds both (gpsd's reports beside the receiver's NMEA)
/// plays the NMEA: once a sentence has been read, the reports' fixes, which gpsd made of the
/// same epochs, are not played again.
struct CapturePlayer<C: Clock> where C.Duration == Duration {
  let receiver: Receiver
  var pacer: Pacer<C>
  private var lines = CaptureLines()
  private var pipeline: Pipeline
  private var reports = GPSDStreamDecoder()
  private var fixes = 0
  private var positions = 0
  /// Epochs with a position and a date: those that give a location.
  private var dated = 0
  /// The events being published, when playing as fast as possible. The task gives them back,
  /// so that they are let go of here, on the decoding side: each fix's box is freed by the
  /// thread that made it, in its own malloc arena. Freed on the listeners' thread, every free
  /// took the decoding thread's arena lock while it was making the next fixes (glibc), and the
  /// replay of 100k epochs took 8 % more CPU and 6 % more time.
  private var publishing: Task<[ReceiverEvent], Never>?
  /// Events released and not yet handed off, and how many pieces they came from.
  private var pending: (batch: ReceiverEventBatch, pieces: Int)?
  /// How many pieces' events go in one hand-off: each wakes a thread, which on a virtual
  /// machine costs as much as decoding a tenth of a piece. Two halve the wakes at no cost in
  /// memory (a 100k-epoch replay peaks at the same 9.1–9.5 MB); four were no faster and
  /// peaked up to 0.6 MB higher, with more events in flight.
  static var piecesPerHandOff: Int { 2 }

  init(receiver: Receiver, pacer: Pacer<C>) {
    self.receiver = receiver
    self.pacer = pacer
    pipeline = Pipeline(for: receiver)
  }

  private var paced: Bool { pacer.speed != .max }

  /// Whether the capture has shown NMEA sentences (good or not): then its NMEA is played.
  private var holdsNMEA: Bool {
    let framed = pipeline.decoder.framer.counters
    return framed.sentences + framed.badChecksum + framed.missingChecksum > 0
  }

  /// Plays what `piece` completes; `false` once the task is cancelled.
  mutating func play(_ piece: [UInt8]) async -> Bool {
    let receiver = self.receiver
    // The sorter is taken out while it runs, so that its callbacks may feed the decoders in
    // place (a copy of the pipeline would copy its buffers).
    var lines = self.lines
    let holdingAll = paced
    piece.withUnsafeBytes { piece in
      lines.sort(
        piece, other: { self.pipeline.append($0, for: receiver, holdingAll: holdingAll) },
        report: { line in
          self.reports.append(line)
          self.reports.append(CollectionOfOne(0x0A))
        })
    }
    self.lines = lines
    return await drain()
  }

  /// The end of the capture: its last epoch is complete.
  mutating func finish() async -> Bool {
    let receiver = self.receiver
    var lines = self.lines
    lines.finish { line in self.reports.append(line) }
    self.lines = lines
    pipeline.finishAppending()
    reports.finish()
    guard await drain(atEnd: true) else { return false }
    await published()
    pipeline.releaseRest(for: receiver)
    receiver.record(pipeline.tally)
    receiver.publish(.flush)
    return true
  }

  /// Releases every fix the input so far completes: each when it is due, or, as fast as it
  /// can, a few pieces' at once (see ``handOff(_:)``), and what is left at the end.
  private mutating func drain(atEnd: Bool = false) async -> Bool {
    let receiver = self.receiver
    guard paced else {
      let keepingSentences = receiver.interests.contains(.sentences)
      let batch = pending?.batch ?? ReceiverEventBatch(for: receiver)
      while let fix = nextFix(keepingSentences: keepingSentences) { release(fix, for: batch) }
      let pieces = (pending?.pieces ?? 0) + 1
      guard atEnd || pieces >= Self.piecesPerHandOff else {
        pending = (batch, pieces)
        return !Task.isCancelled
      }
      pending = nil
      return await handOff(batch)
    }
    // Asked again before each epoch: a client that starts watching sentences a minute into
    // a paced replay gets them from the next epoch on, not after the piece read before it.
    while let fix = nextFix(keepingSentences: receiver.interests.contains(.sentences)) {
      guard await pacer.wait(for: fix) else { return false }
      release(fix, for: receiver)
      receiver.record(pipeline.tally)
      guard await flush() else { return false }
    }
    return true
  }

  private mutating func release(_ fix: Fix, for sink: some ReceiverEventSink) {
    fixes += 1
    if fix.hasPosition { positions += 1 }
    if fix.hasPosition, fix.timestamp != nil { dated += 1 }
    if holdsNMEA {
      pipeline.release(fix, for: sink)
    } else {
      // A u-blox sending UBX only, or gpsd's reports: what was held goes out as it is played
      // (a paced replay holds every byte).
      pipeline.releaseHeld(for: sink)
      pipeline.releaseIntegrity(for: sink)
      sink.publish(.fix(fix))
    }
  }

  /// As fast as it can, a few pieces' events go to the listeners on a task of their own while
  /// the next pieces are decoded: one hand-off for ``piecesPerHandOff`` pieces (not an event),
  /// so decoding, the listeners' work (the engine) and their readers (the command line's
  /// output) run side by side. One batch at most waits to be published.
  private mutating func handOff(_ batch: ReceiverEventBatch) async -> Bool {
    _ = await publishing?.value
    guard !Task.isCancelled else { return false }
    let receiver = self.receiver
    let events = batch.events
    receiver.record(pipeline.tally)
    publishing = Task {
      for event in events { receiver.publish(event) }
      receiver.publish(.flush)
      await receiver.waitForListeners()
      return events
    }
    return true
  }

  /// Returns once everything handed off has been published.
  mutating func published() async {
    _ = await publishing?.value
    publishing = nil
  }

  private mutating func nextFix(keepingSentences: Bool) -> Fix? {
    if let fix = pipeline.nextFix(keepingSentences: keepingSentences) { return fix }
    while let output = reports.next() {
      // gpsd's fixes of a capture that holds the receiver's own NMEA would be its epochs twice.
      if case .fix(let fix) = output, !holdsNMEA { return fix }
    }
    return nil
  }

  /// Lets listeners pass on what they gathered, and waits for those with queues of their own.
  private func flush() async -> Bool {
    receiver.publish(.flush)
    await receiver.waitForListeners()
    return !Task.isCancelled
  }

  /// What was played ("250 epochs (230 with a position) from 2491 sentences, 2 skipped"), or
  /// `nil` when the capture held no NMEA sentence, no gpsd report and no UBX frame at all. An
  /// epoch without a position is no location, so the two are counted apart.
  var summary: String? {
    var (unit, count, skipped, found) = ("reports", reports.counters.reports, reports.counters.rejected, reports.counters.reports)
    if holdsNMEA || found == 0 {
      // A sentence with a bad or missing checksum is NMEA all the same.
      let framed = pipeline.decoder.framer.counters
      (unit, count, skipped) = ("sentences", framed.sentences, pipeline.rejected)
      found = framed.sentences + framed.badChecksum + framed.missingChecksum
    }
    if found == 0 {
      // A u-blox left sending UBX only: its frames are the capture. (Frames thrown away alone
      // are not: two random bytes are UBX's sync one time in 65,536.)
      let framed = pipeline.splitter.counters
      (unit, count, skipped) = ("UBX frames", framed.ubx, framed.rejectedCount)
      found = framed.ubx
    }
    guard found > 0 else { return nil }
    let epochs = fixes == 1 ? "1 epoch" : "\(fixes) epochs"
    // An epoch without a position, or without a date, is no location: why none came is said.
    let positioned: String
    if fixes > 0, positions == 0 {
      positioned = "none with a position: the receiver had no fix"
    } else if positions > 0, dated == 0 {
      positioned =
        "\(positions) with a position, none with a date: the capture never says the date (no RMC or ZDA);"
        + " a '# Date: YYYY-MM-DD' line at its top gives it"
    } else {
      positioned = "\(positions) with a position"
    }
    return "\(epochs) (\(positioned)) from \(count) \(unit)" + (skipped > 0 ? ", \(skipped) skipped" : "")
  }
}

extension ReplaySource where C == ContinuousClock {
  /// A replay paced by the system's monotonic clock.
  public init(capture: Capture, speed: ReplaySpeed = .realTime, loops: Bool = false) {
    self.init(capture: capture, speed: speed, loops: loops, clock: ContinuousClock())
  }
}
