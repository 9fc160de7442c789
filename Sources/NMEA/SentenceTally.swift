/// How many sentences of each talker and type a stream held, counted by packed integer keys
/// (no text is made until someone asks for it), in a fixed table: at most ``capacity`` kinds
/// are told apart, the rest are counted together as ``others``.
public struct SentenceTally: Sendable, Equatable {
  /// Kinds told apart; a real receiver sends a dozen or two.
  public static let capacity = 64
  private var keys: [UInt64] = []
  private var talkers: [Talker] = []
  private var types: [SentenceType] = []
  private var counts: [Int] = []
  /// Sentences of kinds beyond ``capacity``.
  public private(set) var others = 0

  public init() {
    keys.reserveCapacity(Self.capacity)
  }

  /// Counts one sentence.
  @inline(__always)
  public mutating func count(_ sentence: Sentence) {
    count(talker: sentence.talker, type: sentence.type)
  }

  /// Counts one sentence of this talker and type.
  @inline(__always)
  package mutating func count(talker: Talker, type: SentenceType) {
    let key = UInt64(talker.rawValue) << 48 ^ type.rawValue
    var index = 0
    while index < keys.count, keys[index] != key { index += 1 }
    if index < keys.count {
      counts[index] += 1
    } else if keys.count < Self.capacity {
      keys.append(key)
      talkers.append(talker)
      types.append(type)
      counts.append(1)
    } else {
      others += 1
    }
  }

  /// Each kind as text (`GPGGA`, `PUBX`) with its count, most frequent first.
  public var entries: [(kind: String, count: Int)] {
    (0..<keys.count).map { index in
      let talker = talkers[index]
      return ((talker == .proprietary ? "P" : talker.description) + types[index].description, counts[index])
    }
    .sorted { $0.count != $1.count ? $0.count > $1.count : $0.kind < $1.kind }
  }
}
