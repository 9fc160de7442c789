import NMEA
import Plumbing

/// A serial port's bytes through the receiver's ``Pipeline`` as they arrive, with the counters
/// autobaud and silence detection need. Its state lives on the ``DescriptorReader``'s queue,
/// and so events reach the receiver's listeners there.
final class PortReader: @unchecked Sendable {
  enum Event: Sendable {
    case tick(Counters)
    /// The port closed (unplugged: the error, if any), with the counters at the end, so a
    /// session shorter than a tick still knows whether it gave a fix.
    case closed(Errno?, Counters)
  }

  struct Counters: Sendable {
    var bytes = 0
    var sentences = 0
    var fixes = 0
    var lastByte: ContinuousClock.Instant?
    var lastSentence: ContinuousClock.Instant?
  }

  private let receiver: Receiver
  private let continuation: AsyncStream<Event>.Continuation
  private var pipeline: Pipeline
  private var counters = Counters()
  private var reader: DescriptorReader!

  /// A reader of `port` decoding with `pipeline`: the previous session's, after a replug, so
  /// what it learned of the receiver's cycle (where an epoch ends) still holds and the first
  /// epoch after the replug goes out the moment it is complete.
  init(port: SerialPort, receiver: Receiver, pipeline: Pipeline, continuation: AsyncStream<Event>.Continuation) {
    self.receiver = receiver
    self.continuation = continuation
    self.pipeline = pipeline
    self.reader = DescriptorReader(
      descriptor: port.descriptor, label: "gpsbridge.serial",
      onBytes: { [weak self] bytes in self?.received(bytes) },
      onTick: { [weak self] in
        guard let self else { return }
        continuation.yield(.tick(counters))
      },
      onClosed: { [weak self] error in
        var final = Counters()
        if let self {
          if let outlet = self.outlet { receiver.detach(outlet) }
          let fixesBefore = self.pipeline.decoder.assembler.counters.epochs
          self.pipeline.finish(for: receiver)
          self.counters.fixes += self.pipeline.decoder.assembler.counters.epochs - fixesBefore
          final = self.counters
        }
        continuation.yield(.closed(error, final))
        continuation.finish()
      })
  }

  /// The receiver's outlet for ``Receiver/send(_:)`` while this session runs.
  private var outlet: Int?

  /// Attaches the outlet first: `start` hands over to the reader's queue, which reads it.
  func start() {
    outlet = receiver.attach { [weak reader] bytes in reader?.send(bytes) ?? .failure(.notConnected) }
    reader.start()
  }
  func stop() async { await reader.stop() }

  /// The pipeline, for the next session; read only once the reader has stopped.
  var finishedPipeline: Pipeline { pipeline }

  /// Takes the bytes as the receiver's from now on (autobaud settled, or a fixed rate), and
  /// says `notice` if they were not yet (a fix may have settled them already).
  func settle(saying notice: String? = nil) {
    reader.perform { [self] in
      if notice != nil { pipeline.settledNotice = notice }
      pipeline.settle(for: receiver)
    }
  }

  /// Takes the bytes as noise until they prove to be NMEA (autobaud trying `rate`), when
  /// `notice` and the rate are said.
  func unsettle(saying notice: String, rate: Int) {
    reader.perform { [self] in
      pipeline.isSettled = false
      pipeline.settledNotice = notice
      pipeline.settledLineSpeed = rate
    }
  }

  /// Sets `port` to `rate` and starts decoding afresh, forgetting what was counted, the bytes
  /// noise until they prove to be NMEA, when `notice` and the rate are said. On the reader's
  /// queue, between two reads: the change never races a read of the same descriptor.
  func reset(_ port: SerialPort, to rate: Int, saying notice: String) {
    reader.perform { [self] in
      try? port.setBaudRate(rate)
      pipeline.reset()
      pipeline.isSettled = false
      pipeline.settledNotice = notice
      pipeline.settledLineSpeed = rate
      counters = Counters()
    }
  }

  /// Publishes `event` from the reader's queue, in order with the fixes it publishes.
  func publish(_ event: ReceiverEvent) {
    reader.perform { [receiver] in receiver.publish(event) }
  }

  private func received(_ bytes: UnsafeRawBufferPointer) {
    let now = ContinuousClock.now
    counters.bytes += bytes.count
    counters.lastByte = now
    let before = pipeline.decoder.framer.counters.sentences
    let fixesBefore = pipeline.decoder.assembler.counters.epochs
    pipeline.take(bytes, arrivedAt: WallClock.now, uptime: WallClock.uptime, for: receiver)
    let framed = pipeline.decoder.framer.counters.sentences
    if framed > before { counters.lastSentence = now }
    counters.sentences = framed
    counters.fixes += pipeline.decoder.assembler.counters.epochs - fixesBefore
  }
}
