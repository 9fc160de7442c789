// The type check every message init begins with.

extension Sentence {
  /// Throws unless this sentence is of `expected` type.
  func require(_ expected: SentenceType) throws(NMEAError) {
    guard type == expected else { throw .wrongType(expected: expected, found: type) }
  }
}
