/// A framed sentence read through a pointer into the framer's buffer: what the message
/// decoders read.
///
/// Unlike ``Sentence`` it holds no reference, so making, copying and dropping one costs
/// nothing; in exchange it is valid only while the buffer it points into is held, inside
/// ``Sentence/withView(_:)`` or ``FixDecoder``'s loop.
package struct SentenceView {
  let base: UnsafePointer<UInt8>
  let frame: Framer.Frame

  package var talker: Talker { frame.talker }
  package var type: SentenceType { frame.type }
  package var fieldCount: Int { frame.fieldCount }
  /// The address's length, talker and type: a type keeps only its first eight letters.
  package var addressLength: Int { frame.addressEnd - frame.start - 1 }
  /// Whether it started with `!` (an encapsulated sentence such as AIS `!AIVDM`).
  package var isEncapsulated: Bool { base[frame.start] == UInt8(ascii: "!") }

  /// Reads the data fields in place, as ``Sentence/withFields(_:)`` does.
  @inline(__always)
  package func withFields<Result, Failure: Error>(
    _ body: (inout Fields) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    var fields = Fields(base: base, position: frame.addressEnd, end: frame.payloadEnd, type: frame.type)
    return try body(&fields)
  }

  /// Throws unless this sentence is of `expected` type: the check every message init begins
  /// with.
  func require(_ expected: SentenceType) throws(NMEAError) {
    guard type == expected else { throw .wrongType(expected: expected, found: type) }
  }
}
