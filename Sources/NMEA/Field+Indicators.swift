// Decoders for the letter fields several sentences share, and the type check every
// message init begins with.

extension Field {
  /// An `A` (valid) / `V` (void) status field.
  func status() throws(NMEAError) -> Bool? {
    guard let letter = try character() else { return nil }
    switch letter {
    case UInt8(ascii: "A"): return true
    case UInt8(ascii: "V"): return false
    default: throw invalid
    }
  }

  /// A mode indicator letter (`A`, `D`, `E`, `N`, …).
  func modeIndicator() throws(NMEAError) -> FixQuality? {
    guard let letter = try character() else { return nil }
    guard let quality = FixQuality(modeIndicator: letter) else { throw invalid }
    return quality
  }

  /// A unit letter that must be `expected` when present.
  func unit(_ expected: UInt8) throws(NMEAError) {
    guard let letter = try character() else { return }
    guard letter == expected else { throw invalid }
  }
}

extension Sentence {
  /// Throws unless this sentence is of `expected` type.
  func require(_ expected: SentenceType) throws(NMEAError) {
    guard type == expected else { throw .wrongType(expected: expected, found: type) }
  }
}
