import NMEA
import Plumbing

/// A serial port's bytes through the receiver's ``Pipeline`` as they arrive, with the counters
/// autobaud and silence detection need. Its state lives on the ``DescriptorReader``'s queue,
/// and so events reach the receiver's listeners there.
final class PortReader: @unchecked Sendable {
  enum Event: Sendable {
    case tick(Counters)
    case closed(Errno?)
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

  init(port: SerialPort, receiver: Receiver, defaultDate: UTCDate?, continuation: AsyncStream<Event>.Continuation) {
    self.receiver = receiver
    self.continuation = continuation
    self.pipeline = Pipeline(for: receiver, defaultDate: defaultDate)
    pipeline.isSettled = false
    self.reader = DescriptorReader(
      descriptor: port.descriptor, label: "gpsbridge.serial",
      onBytes: { [weak self] bytes in self?.received(bytes) },
      onTick: { [weak self] in
        guard let self else { return }
        continuation.yield(.tick(counters))
      },
      onClosed: { [weak self] error in
        if let self { pipeline.finish(for: receiver) }
        continuation.yield(.closed(error))
        continuation.finish()
      })
  }

  func start() { reader.start() }
  func stop() async { await reader.stop() }

  /// Says whether the bytes are the receiver's (autobaud settled), so are passed on.
  func settle(_ settled: Bool) {
    reader.perform { [self] in pipeline.isSettled = settled }
  }

  /// Starts decoding afresh (after a baud change), forgetting what was counted.
  func reset() {
    reader.perform { [self] in
      pipeline.reset()
      counters = Counters()
    }
  }

  private func received(_ bytes: UnsafeRawBufferPointer) {
    let now = ContinuousClock.now
    counters.bytes += bytes.count
    counters.lastByte = now
    let before = pipeline.decoder.framer.counters.sentences
    let fixesBefore = pipeline.decoder.assembler.counters.epochs
    pipeline.take(bytes, for: receiver)
    let framed = pipeline.decoder.framer.counters.sentences
    if framed > before { counters.lastSentence = now }
    counters.sentences = framed
    counters.fixes += pipeline.decoder.assembler.counters.epochs - fixesBefore
  }
}
