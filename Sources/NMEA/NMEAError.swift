/// Why a framed sentence could not be decoded. Each case names the sentence type and, where
/// it applies, the 1-based field number from the ruler in that message's documentation.
public enum NMEAError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The sentence is a different type from the one asked for.
  case wrongType(expected: SentenceType, found: SentenceType)
  /// A field the message cannot do without is empty or missing.
  case missingField(SentenceType, field: Int)
  /// A field holds text that is not valid for it (letters in a number, minutes above 59, …).
  case invalidField(SentenceType, field: Int)

  public var description: String {
    switch self {
    case .wrongType(let expected, let found): "expected a \(expected) sentence, found \(found)"
    case .missingField(let type, let field): "\(type) field \(field) is required but empty"
    case .invalidField(let type, let field): "\(type) field \(field) is not valid"
    }
  }
}
