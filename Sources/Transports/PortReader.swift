import Dispatch
import NMEA
import Plumbing

/// One session on a serial port: its bytes through the receiver's ``Pipeline`` as they
/// arrive, and autobaud and silence detection (a ``LineWatch``) at each tick of the reader's
/// timer. All of it runs on the ``DescriptorReader``'s queue: a rate is changed between two
/// reads, and the listeners hear statuses, rates and fixes in the order they happened.
final class PortReader: @unchecked Sendable {
  /// How the session ended.
  struct Ending: Sendable {
    /// The port's error (unplugged), if any; `nil` for an end of file or a stop.
    var error: Errno?
    /// Whether a fix came through, however short the session.
    var hadFix: Bool
    /// The rate proven (or given), for the next session to try first.
    var knownRate: Int?
  }

  private let receiver: Receiver
  private let port: SerialPort
  private var pipeline: Pipeline
  private var watch: LineWatch
  private let notice: (Int) -> String
  private let now: @Sendable () -> ContinuousClock.Instant
  private var counters = LineWatch.Counters()
  private var reader: DescriptorReader!
  private let ending = Locked<(Ending?, CheckedContinuation<Ending, Never>?)>((nil, nil))

  /// A session on `port`, decoding with `pipeline`: the previous session's, after a replug,
  /// so what it learned of the receiver's cycle (where an epoch ends) still holds and the
  /// first epoch after the replug goes out the moment it is complete. `notice` says a rate
  /// found ("NMEA at 9600 baud"); `scheduler` is the clock the watch is told and runs the
  /// reader's tick.
  init(
    port: SerialPort, receiver: Receiver, pipeline: Pipeline, watch: LineWatch, notice: @escaping (Int) -> String,
    queue: DispatchQueue, scheduler: Scheduler
  ) {
    self.port = port
    self.receiver = receiver
    self.pipeline = pipeline
    self.watch = watch
    self.notice = notice
    self.now = scheduler.now
    self.reader = DescriptorReader(
      descriptor: port.descriptor, queue: queue, scheduler: scheduler,
      onBytes: { [weak self] bytes in self?.received(bytes) },
      onTick: { [weak self] in self?.tick() },
      onClosed: { [weak self] error in self?.closed(error) })
  }

  /// The receiver's outlet for ``Receiver/send(_:)`` while this session runs.
  private var outlet: Int?

  /// Runs the session until the port closes or ``stop()`` is called.
  func run() async -> Ending {
    outlet = receiver.attach(
      Receiver.Outlet(
        send: { [weak reader] bytes in reader?.send(bytes) ?? .failure(.notConnected) },
        changeLineSpeed: { [weak self] rate, done in
          guard let self else { return done(.failure(.notConnected)) }
          self.reader.afterWrites { written in
            guard written else { return done(.failure(.notConnected)) }
            done(self.switchSpeed(to: rate))
          }
        },
        perform: { [weak reader] work in reader?.perform(work) },
        probe: { [weak reader] done in
          guard let reader else { return done(false) }
          reader.probe(done)
        }))
    reader.perform { [self] in
      if watch.probing {
        pipeline.isSettled = false
        pipeline.settledNotice = notice(watch.rate)
        pipeline.settledLineSpeed = watch.rate
      } else {
        receiver.publish(.lineSpeed(watch.rate))
      }
    }
    reader.start()
    return await withCheckedContinuation { continuation in
      let ended = ending.withLock { state -> Ending? in
        if state.0 == nil { state.1 = continuation }
        return state.0
      }
      if let ended { continuation.resume(returning: ended) }
    }
  }

  func stop() async { await reader.stop() }

  /// The pipeline, for the next session; read only once the session has ended.
  var finishedPipeline: Pipeline { pipeline }

  private func tick() {
    receiver.noteTurn()
    for action in watch.tick(counters, now: now()) {
      switch action {
      case .settle:
        pipeline.settle(for: receiver)
      case .probe(let rate):
        try? port.setBaudRate(rate)
        pipeline.reset()
        pipeline.isSettled = false
        pipeline.settledNotice = notice(rate)
        pipeline.settledLineSpeed = rate
        counters = LineWatch.Counters()
      case .fail(let error):
        receiver.publish(.status(.failed(error)))
      }
    }
  }

  /// On the reader's queue, what was queued written: the port drained onto the line and set
  /// to `rate`, the watch told, the decoder started afresh (bytes at the old speed are garbage
  /// at the new one).
  private func switchSpeed(to rate: Int) -> Result<Int, Receiver.SendError> {
    let before = watch.rate
    do throws(Errno) {
      try port.descriptor.drainOutput()
      try port.setBaudRate(rate)
    } catch {
      return .failure(.notConnected)
    }
    let now = now()
    watch.switched(to: rate, now: now)
    pipeline.reset()
    pipeline.isSettled = true
    counters = LineWatch.Counters()
    counters.lastSentence = now
    counters.lastByte = now
    receiver.publish(.lineSpeed(rate))
    return .success(before)
  }

  private func closed(_ error: Errno?) {
    if let outlet { receiver.detach(outlet) }
    let fixesBefore = pipeline.decoder.assembler.counters.epochs
    pipeline.finish(for: receiver)
    counters.fixes += pipeline.decoder.assembler.counters.epochs - fixesBefore
    let result = Ending(error: error, hadFix: counters.fixes > 0, knownRate: watch.knownRate)
    let waiter = ending.withLock { state in
      state.0 = result
      return state.1
    }
    waiter?.resume(returning: result)
  }

  /// Checksummed sentences and binary frames so far: either proves the rate (a u-blox left
  /// sending UBX only sends no NMEA at all).
  private var framed: Int {
    pipeline.decoder.framer.counters.sentences + pipeline.splitter.counters.ubx + pipeline.splitter.counters.rtcm3
  }

  private func received(_ bytes: UnsafeRawBufferPointer) {
    let arrival = now()
    counters.lastByte = arrival
    let before = framed
    let fixesBefore = pipeline.decoder.assembler.counters.epochs
    pipeline.take(bytes, arrivedAt: WallClock.now, uptime: WallClock.uptime, for: receiver)
    let framed = self.framed
    if framed > before {
      counters.lastSentence = arrival
      counters.bytesSinceFrame = 0
    } else {
      counters.bytesSinceFrame += bytes.count
    }
    counters.sentences = framed
    counters.fixes += pipeline.decoder.assembler.counters.epochs - fixesBefore
  }
}
