import NMEA
import Plumbing

/// A serial port's bytes decoded into fixes as they arrive, with the counters autobaud and
/// silence detection need. Its state lives on the ``DescriptorReader``'s queue.
final class PortReader: @unchecked Sendable {
  enum Event: Sendable {
    case fix(Fix)
    case tick(Counters)
    case closed(Errno?)
  }

  struct Counters: Sendable {
    var bytes = 0
    var sentences = 0
    var rejected = 0
    var lastByte: ContinuousClock.Instant?
    var lastSentence: ContinuousClock.Instant?
  }

  /// Where the taps (``SerialSource/rawBytes``, ``SerialSource/onSentence``, its rejects)
  /// and the decoder's settings come from.
  private let source: SerialSource
  private let defaultDate: UTCDate?
  private let continuation: AsyncStream<Event>.Continuation
  private var decoder: FixDecoder
  private var counters = Counters()
  private var forwarding = false
  private var reader: DescriptorReader!

  init(port: SerialPort, source: SerialSource, defaultDate: UTCDate?, continuation: AsyncStream<Event>.Continuation) {
    self.source = source
    self.defaultDate = defaultDate
    self.continuation = continuation
    self.decoder = FixDecoder(defaultDate: defaultDate, keepsSatellites: source.keepsSatellites)
    self.reader = DescriptorReader(
      descriptor: port.descriptor, label: "gpsbridge.serial",
      onBytes: { [weak self] bytes in self?.received(bytes) },
      onTick: { [weak self] in
        guard let self else { return }
        continuation.yield(.tick(counters))
      },
      onClosed: { [weak self] error in
        // The device went away: its last epoch is complete, as at the end of a capture.
        self?.flush()
        continuation.yield(.closed(error))
        continuation.finish()
      })
  }

  func start() { reader.start() }
  func stop() async { await reader.stop() }

  /// Turns forwarding of raw bytes on or off (off while autobaud listens at wrong rates).
  func forwardBytes(_ on: Bool) {
    reader.perform { [self] in forwarding = on }
  }

  /// Starts decoding afresh (after a baud change), forgetting what was counted.
  func reset() {
    reader.perform { [self] in
      decoder = FixDecoder(defaultDate: defaultDate, keepsSatellites: source.keepsSatellites)
      counters = Counters()
    }
  }

  private func flush() {
    decoder.finish()
    decodeAvailable()
  }

  /// Every fix the bytes so far complete, passing the sentences on when asked to.
  private func decodeAvailable() {
    if forwarding, let onSentence = source.onSentence {
      while let fix = decoder.next(onSentence: { onSentence(Array($0.bytes)) }) { continuation.yield(.fix(fix)) }
      return
    }
    while let fix = decoder.next() { continuation.yield(.fix(fix)) }
  }

  private func received(_ bytes: UnsafeRawBufferPointer) {
    let now = ContinuousClock.now
    counters.bytes += bytes.count
    counters.lastByte = now
    if forwarding, let rawBytes = source.rawBytes { rawBytes(Array(bytes)) }
    decoder.append(bytes)
    let before = decoder.framer.counters.sentences
    decodeAvailable()
    let framed = decoder.framer.counters
    if framed.sentences > before { counters.lastSentence = now }
    counters.sentences = framed.sentences
    let rejected = framed.badChecksum + framed.malformed + framed.overlong + framed.missingChecksum + decoder.decodeErrors
    if rejected != counters.rejected, forwarding { source.rejects?.update(Self.summary(framed, undecodable: decoder.decodeErrors)) }
    counters.rejected = rejected
  }

  /// The sentences thrown away so far, by reason: `3 bad checksum, 1 undecodable`.
  static func summary(_ counters: Framer.Counters, undecodable: Int) -> String? {
    let parts = [
      (counters.badChecksum, "bad checksum"), (counters.missingChecksum, "no checksum"), (counters.malformed, "malformed"),
      (counters.overlong, "overlong"), (undecodable, "undecodable"),
    ].filter { $0.0 > 0 }
    return parts.isEmpty ? nil : parts.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
  }
}
