/// One framed, checksum-verified NMEA sentence, viewed in place in the framer's buffer.
///
/// ```
///  $GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47
///  ^start ^fields ...                                                ^payloadEnd ^end
/// ```
///
/// A sentence shares storage with the ``Framer`` that produced it (a reference to a
/// copy-on-write buffer, not a copy), so producing one allocates nothing. It stays valid for
/// as long as you keep it: if you still hold it when the framer next appends bytes, the framer
/// copies its buffer rather than changing what you see. Dropping each sentence before the
/// next `append` keeps the framer allocation-free.
public struct Sentence: Hashable, Sendable, CustomStringConvertible {
  let storage: [UInt8]
  /// Where it lies in `storage`, and what it is.
  let frame: Framer.Frame

  /// How many data fields follow the address (its commas, counted while framing; a trailing
  /// empty field counts).
  public var fieldCount: Int { frame.fieldCount }
  /// Who sent it: `GP`, `GN`, … or ``Talker/proprietary`` for `$P…` sentences.
  public var talker: Talker { frame.talker }
  /// What it is: `GGA`, `RMC`, … For proprietary sentences, the rest of the address (`UBX`).
  public var type: SentenceType { frame.type }

  init(storage: [UInt8], frame: Framer.Frame) {
    self.storage = storage
    self.frame = frame
  }

  /// Frames a single sentence from text such as `"$GPGGA,…*47"`, checking its checksum as the
  /// framer would. Returns `nil` when the framer would drop it. Convenient in tests and tools;
  /// streams go through ``Framer``.
  public init?(_ text: String, options: Framer.Options = .init()) {
    var framer = Framer(options: options)
    framer.append(Array(text.utf8))
    framer.finish()
    guard let sentence = framer.next() else { return nil }
    self = sentence
  }

  /// Whether it started with `!` (an encapsulated sentence such as AIS `!AIVDM`).
  public var isEncapsulated: Bool { storage[frame.start] == UInt8(ascii: "!") }

  /// Whether it carried a checksum (sentences without one are only framed when
  /// ``Framer/Options/acceptsMissingChecksum`` is set).
  public var hasChecksum: Bool { frame.payloadEnd != frame.end }

  /// The sentence's bytes from `$` through the checksum, without the line terminator.
  public var bytes: ArraySlice<UInt8> { storage[frame.start..<frame.end] }

  /// The sentence as text, without the line terminator. Allocates: for logs and tools.
  public var description: String { String(decoding: bytes, as: UTF8.self) }

  /// Reads the data fields in place. The ``Fields`` cursor points into this sentence's buffer
  /// and must not escape `body`.
  public func withFields<Result, Failure: Error>(
    _ body: (inout Fields) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try withView { (view: SentenceView) throws(Failure) -> Result in try view.withFields(body) }
  }

  /// This sentence as a ``SentenceView``, valid only inside `body`.
  package func withView<Result, Failure: Error>(
    _ body: (SentenceView) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try storage.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) throws(Failure) -> Result in
      try body(SentenceView(base: buffer.baseAddress!, frame: frame))
    }
  }

  public static func == (lhs: Sentence, rhs: Sentence) -> Bool {
    lhs.bytes.elementsEqual(rhs.bytes)
  }

  public func hash(into hasher: inout Hasher) {
    for byte in bytes { hasher.combine(byte) }
  }
}
