extension Framer {
  /// Where a framed sentence lies in the framer's buffer, and what it is.
  ///
  /// A plain value, with no reference to the buffer: the hot path (``FixDecoder``) passes
  /// frames around and reads their bytes in place, so that it counts no references and copies
  /// nothing per sentence. A ``Sentence`` is a frame together with the buffer it points into.
  package struct Frame: Sendable {
    /// Index of the leading `$` or `!`.
    package var start: Int
    /// Index of the `*` before the checksum, or of ``end`` when there is none.
    package var payloadEnd: Int
    /// One past the last byte of the sentence (the line terminator is not part of it).
    package var end: Int
    /// Index of the comma that ends the address field, or ``payloadEnd`` when there is none.
    package var addressEnd: Int
    /// How many data fields follow the address (see ``Sentence/fieldCount``).
    package var fieldCount: Int
    package var talker: Talker
    package var type: SentenceType
  }
}
