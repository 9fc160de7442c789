/// A set of satellite numbers (1 through 511) held in a fixed bit set, so a GSA allocates
/// nothing. Iterates in increasing order.
public struct SatelliteNumbers: Hashable, Sendable, Sequence {
  public static let limit = 512
  var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

  public init() {}

  public init<Numbers: Sequence<Int>>(_ numbers: Numbers) {
    for number in numbers { insert(number) }
  }

  public mutating func insert(_ number: Int) {
    guard number > 0, number < Self.limit else { return }
    withUnsafeMutableBytes(of: &words) { raw in
      let words = raw.bindMemory(to: UInt64.self)
      words[number >> 6] |= 1 << UInt64(number & 63)
    }
  }

  public func contains(_ number: Int) -> Bool {
    guard number > 0, number < Self.limit else { return false }
    return withUnsafeBytes(of: words) { raw in
      raw.load(fromByteOffset: (number >> 6) * 8, as: UInt64.self) & (1 << UInt64(number & 63)) != 0
    }
  }

  public var count: Int {
    withUnsafeBytes(of: words) { raw in raw.bindMemory(to: UInt64.self).reduce(0) { $0 + $1.nonzeroBitCount } }
  }

  public var isEmpty: Bool { count == 0 }

  public func makeIterator() -> Iterator { Iterator(numbers: self) }

  /// Visits set bits word by word, skipping empty words.
  public struct Iterator: IteratorProtocol {
    let numbers: SatelliteNumbers
    var word = 0
    var bits: UInt64

    init(numbers: SatelliteNumbers) {
      self.numbers = numbers
      self.bits = numbers.words.0
    }

    public mutating func next() -> Int? {
      while bits == 0 {
        word += 1
        guard word < 8 else { return nil }
        bits = withUnsafeBytes(of: numbers.words) { $0.load(fromByteOffset: word * 8, as: UInt64.self) }
      }
      let bit = bits.trailingZeroBitCount
      bits &= bits - 1
      return word * 64 + bit
    }
  }

  public static func == (lhs: SatelliteNumbers, rhs: SatelliteNumbers) -> Bool {
    withUnsafeBytes(of: lhs.words) { left in withUnsafeBytes(of: rhs.words) { right in left.elementsEqual(right) } }
  }

  public func hash(into hasher: inout Hasher) {
    withUnsafeBytes(of: words) { hasher.combine(bytes: $0) }
  }
}
