/// The whole NMEA pipeline in one value: bytes in, one ``Fix`` per receiver epoch out.
///
/// ```swift
/// var decoder = FixDecoder()
/// decoder.append(chunk)
/// while let fix = decoder.next() { … }
/// // at end of input:
/// decoder.finish()
/// while let fix = decoder.next() { … }
/// ```
///
/// A capture's `# Date:` comments reach the assembler at the point in the stream where they
/// appear. Sentences that frame but fail to decode are counted in ``decodeErrors`` and skipped.
public struct FixDecoder: Sendable {
  public private(set) var framer: Framer
  public private(set) var assembler: EpochAssembler

  /// Framed sentences whose fields could not be decoded (see ``NMEAError``).
  public private(set) var decodeErrors = 0
  /// Sentences by talker and type, when the decoder was made to count them.
  public private(set) var tally: SentenceTally?
  var finished = false
  var captureDate: UTCDate?
  /// For a live source: when the latest bytes arrived and where they begin in the framer's
  /// buffer, and when the bytes before them arrived (a sentence may have begun in those).
  var arrivals: (latest: Arrival, start: Int, previous: Arrival)?

  /// When bytes arrived: by the system clock, and by the raw clock that no one steps or slews.
  struct Arrival {
    var wall: UTCTimestamp
    var uptime: Duration?
  }

  /// - Parameters:
  ///   - options: what the framer accepts.
  ///   - defaultDate: the date for streams that never send one; a capture's `# Date:`
  ///     comment overrides it.
  ///   - countsSentences: keep a ``tally`` of the sentences by talker and type.
  ///   - keepsSatellites: whether fixes carry the satellites in view (see
  ///     ``EpochAssembler/keepsSatellites``).
  public init(
    options: Framer.Options = .init(), defaultDate: UTCDate? = nil, countsSentences: Bool = false, keepsSatellites: Bool = true
  ) {
    framer = Framer(options: options)
    assembler = EpochAssembler(defaultDate: defaultDate, keepsSatellites: keepsSatellites)
    tally = countsSentences ? SentenceTally() : nil
  }

  public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
    finished = false
    framer.append(bytes)
  }

  public mutating func append(_ bytes: UnsafeRawBufferPointer) {
    finished = false
    framer.append(bytes)
  }

  /// Adds bytes that arrived at `time` by the system clock and at `uptime` by the raw clock:
  /// each epoch's fix carries when its first sentence began to arrive (``Fix/arrival``,
  /// ``Fix/arrivalUptime``).
  package mutating func append(_ bytes: UnsafeRawBufferPointer, arrivedAt time: UTCTimestamp, uptime: Duration? = nil) {
    append(bytes)
    let arrival = Arrival(wall: time, uptime: uptime)
    arrivals = (arrival, framer.storage.count - bytes.count, arrivals?.latest ?? arrival)
  }

  /// Marks the end of input; the last epoch is emitted by the following ``next()`` calls.
  public mutating func finish() {
    framer.finish()
    finished = true
  }

  /// The next fix, or `nil` when more bytes are needed (or, after ``finish()``, none is left).
  public mutating func next() -> Fix? {
    next(showsSentences: false) { _ in }
  }

  /// ``next()``, showing `onSentence` every sentence framed on the way, in order, before it
  /// joins its epoch (for passing a receiver's sentences on, as a gpsd does).
  package mutating func next(onSentence: (Sentence) -> Void) -> Fix? {
    next(showsSentences: true, onSentence)
  }

  /// The loop behind both: sentences are read in place as ``SentenceView``s, and a
  /// ``Sentence`` (which holds a reference to the buffer) is made only to be shown.
  @inline(__always)
  private mutating func next(showsSentences: Bool, _ onSentence: (Sentence) -> Void) -> Fix? {
    while true {
      if assembler.hasFix { return assembler.nextFix() }
      guard let frame = framer.nextFrame() else {
        if finished {
          finished = false
          assembler.finish()
          continue
        }
        return nil
      }
      if showsSentences { onSentence(Sentence(storage: framer.storage, frame: frame)) }
      tally?.count(talker: frame.talker, type: frame.type)
      if framer.captureDate != captureDate {
        captureDate = framer.captureDate
        assembler.defaultDate = captureDate
      }
      if let arrivals {
        let arrival = frame.start >= arrivals.start ? arrivals.latest : arrivals.previous
        assembler.arrival = arrival.wall
        assembler.arrivalUptime = arrival.uptime
      }
      do throws(NMEAError) {
        try framer.storage.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) throws(NMEAError) in
          try assembler.add(SentenceView(base: buffer.baseAddress!, frame: frame))
        }
      } catch {
        decodeErrors += 1
      }
    }
  }
}
