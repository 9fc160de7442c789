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
  /// Index of the leading `$` or `!`.
  let start: Int
  /// Index of the `*` before the checksum, or of ``end`` when there is none.
  let payloadEnd: Int
  /// One past the last byte of the sentence (the line terminator is not part of it).
  let end: Int
  /// Index of the comma that ends the address field, or ``payloadEnd`` when there is none.
  let addressEnd: Int
  /// How many data fields follow the address (its commas, counted while framing; a trailing
  /// empty field counts).
  public let fieldCount: Int

  /// Who sent it: `GP`, `GN`, … or ``Talker/proprietary`` for `$P…` sentences.
  public let talker: Talker
  /// What it is: `GGA`, `RMC`, … For proprietary sentences, the rest of the address (`UBX`).
  public let type: SentenceType

  init(storage: [UInt8], start: Int, payloadEnd: Int, end: Int, addressEnd: Int, fieldCount: Int, talker: Talker, type: SentenceType) {
    self.storage = storage
    self.start = start
    self.payloadEnd = payloadEnd
    self.end = end
    self.addressEnd = addressEnd
    self.fieldCount = fieldCount
    self.talker = talker
    self.type = type
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
  public var isEncapsulated: Bool { storage[start] == UInt8(ascii: "!") }

  /// Whether it carried a checksum (sentences without one are only framed when
  /// ``Framer/Options/acceptsMissingChecksum`` is set).
  public var hasChecksum: Bool { payloadEnd != end }

  /// The sentence's bytes from `$` through the checksum, without the line terminator.
  public var bytes: ArraySlice<UInt8> { storage[start..<end] }

  /// The sentence as text, without the line terminator. Allocates: for logs and tools.
  public var description: String { String(decoding: bytes, as: UTF8.self) }

  /// Reads the data fields in place. The ``Fields`` cursor points into this sentence's buffer
  /// and must not escape `body`.

  public func withFields<Result, Failure: Error>(
    _ body: (inout Fields) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try storage.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) throws(Failure) -> Result in
      var fields = Fields(base: buffer.baseAddress!, position: addressEnd, end: payloadEnd, type: type)
      return try body(&fields)
    }
  }

  public static func == (lhs: Sentence, rhs: Sentence) -> Bool {
    lhs.bytes.elementsEqual(rhs.bytes)
  }

  public func hash(into hasher: inout Hasher) {
    for byte in bytes { hasher.combine(byte) }
  }
}
