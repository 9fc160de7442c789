/// A set of satellite numbers (1 through 511) held in a fixed bit set, so a GSA allocates
/// nothing. Iterates in increasing order.
public struct SatelliteNumbers: Hashable, Sendable, Sequence {
  public static let limit = 512
  /// Bit `n % 64` of word `n / 64` for number `n`, stored inline.
  var words = InlineArray<8, UInt64>(repeating: 0)

  public init() {}

  public init<Numbers: Sequence<Int>>(_ numbers: Numbers) {
    for number in numbers { insert(number) }
  }

  public mutating func insert(_ number: Int) {
    guard number > 0, number < Self.limit else { return }
    words[number >> 6] |= 1 << UInt64(number & 63)
  }

  public func contains(_ number: Int) -> Bool {
    guard number > 0, number < Self.limit else { return false }
    return words[number >> 6] & (1 << UInt64(number & 63)) != 0
  }

  // Loops rather than `reduce` or `allSatisfy`: in a debug build their closures, capturing
  // the set, allocate on every call.
  public var count: Int {
    var total = 0
    for index in words.indices { total += words[index].nonzeroBitCount }
    return total
  }

  public var isEmpty: Bool {
    for index in words.indices where words[index] != 0 { return false }
    return true
  }

  /// The numbers in both sets, word by word.
  func intersection(_ other: SatelliteNumbers) -> SatelliteNumbers { combined(with: other) { $0 & $1 } }

  /// The numbers of this set that `other` does not hold, word by word.
  func subtracting(_ other: SatelliteNumbers) -> SatelliteNumbers { combined(with: other) { $0 & ~$1 } }

  /// Adds all of `other`'s numbers, word by word.
  mutating func formUnion(_ other: SatelliteNumbers) { self = combined(with: other) { $0 | $1 } }

  @inline(__always)
  private func combined(with other: SatelliteNumbers, _ operation: (UInt64, UInt64) -> UInt64) -> SatelliteNumbers {
    var result = SatelliteNumbers()
    for index in words.indices { result.words[index] = operation(words[index], other.words[index]) }
    return result
  }

  public static func == (left: SatelliteNumbers, right: SatelliteNumbers) -> Bool {
    for index in left.words.indices where left.words[index] != right.words[index] { return false }
    return true
  }

  public func hash(into hasher: inout Hasher) {
    for index in words.indices { hasher.combine(words[index]) }
  }

  public func makeIterator() -> Iterator { Iterator(numbers: self) }

  /// Visits set bits word by word, skipping empty words.
  public struct Iterator: IteratorProtocol {
    let numbers: SatelliteNumbers
    var index = 0
    var bits: UInt64

    init(numbers: SatelliteNumbers) {
      self.numbers = numbers
      self.bits = numbers.words[0]
    }

    public mutating func next() -> Int? {
      while bits == 0 {
        index += 1
        guard index < 8 else { return nil }
        bits = numbers.words[index]
      }
      let bit = bits.trailingZeroBitCount
      bits &= bits - 1
      return index * 64 + bit
    }
  }
}
