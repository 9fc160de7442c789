/// A set of satellite numbers (1 through 511) held in a fixed bit set, so a GSA allocates
/// nothing. Iterates in increasing order.
///
/// Eight named words rather than a tuple read through `withUnsafeBytes`: that would copy the
/// set for every question asked of it.
public struct SatelliteNumbers: Hashable, Sendable, Sequence {
  public static let limit = 512
  var w0: UInt64 = 0, w1: UInt64 = 0, w2: UInt64 = 0, w3: UInt64 = 0
  var w4: UInt64 = 0, w5: UInt64 = 0, w6: UInt64 = 0, w7: UInt64 = 0

  public init() {}

  public init<Numbers: Sequence<Int>>(_ numbers: Numbers) {
    for number in numbers { insert(number) }
  }

  @inline(__always)
  func word(_ index: Int) -> UInt64 {
    switch index {
    case 0: w0
    case 1: w1
    case 2: w2
    case 3: w3
    case 4: w4
    case 5: w5
    case 6: w6
    default: w7
    }
  }

  public mutating func insert(_ number: Int) {
    guard number > 0, number < Self.limit else { return }
    let bit: UInt64 = 1 << UInt64(number & 63)
    switch number >> 6 {
    case 0: w0 |= bit
    case 1: w1 |= bit
    case 2: w2 |= bit
    case 3: w3 |= bit
    case 4: w4 |= bit
    case 5: w5 |= bit
    case 6: w6 |= bit
    default: w7 |= bit
    }
  }

  public func contains(_ number: Int) -> Bool {
    guard number > 0, number < Self.limit else { return false }
    return word(number >> 6) & (1 << UInt64(number & 63)) != 0
  }

  public var count: Int {
    w0.nonzeroBitCount + w1.nonzeroBitCount + w2.nonzeroBitCount + w3.nonzeroBitCount + w4.nonzeroBitCount
      + w5.nonzeroBitCount + w6.nonzeroBitCount + w7.nonzeroBitCount
  }

  public var isEmpty: Bool { (w0 | w1 | w2 | w3 | w4 | w5 | w6 | w7) == 0 }

  /// The numbers in both sets, word by word.
  func intersection(_ other: SatelliteNumbers) -> SatelliteNumbers {
    var result = SatelliteNumbers()
    result.w0 = w0 & other.w0
    result.w1 = w1 & other.w1
    result.w2 = w2 & other.w2
    result.w3 = w3 & other.w3
    result.w4 = w4 & other.w4
    result.w5 = w5 & other.w5
    result.w6 = w6 & other.w6
    result.w7 = w7 & other.w7
    return result
  }

  /// The numbers of this set that `other` does not hold, word by word.
  func subtracting(_ other: SatelliteNumbers) -> SatelliteNumbers {
    var result = SatelliteNumbers()
    result.w0 = w0 & ~other.w0
    result.w1 = w1 & ~other.w1
    result.w2 = w2 & ~other.w2
    result.w3 = w3 & ~other.w3
    result.w4 = w4 & ~other.w4
    result.w5 = w5 & ~other.w5
    result.w6 = w6 & ~other.w6
    result.w7 = w7 & ~other.w7
    return result
  }

  /// Adds all of `other`'s numbers, word by word.
  mutating func formUnion(_ other: SatelliteNumbers) {
    w0 |= other.w0
    w1 |= other.w1
    w2 |= other.w2
    w3 |= other.w3
    w4 |= other.w4
    w5 |= other.w5
    w6 |= other.w6
    w7 |= other.w7
  }

  public func makeIterator() -> Iterator { Iterator(numbers: self) }

  /// Visits set bits word by word, skipping empty words.
  public struct Iterator: IteratorProtocol {
    let numbers: SatelliteNumbers
    var index = 0
    var bits: UInt64

    init(numbers: SatelliteNumbers) {
      self.numbers = numbers
      self.bits = numbers.w0
    }

    public mutating func next() -> Int? {
      while bits == 0 {
        index += 1
        guard index < 8 else { return nil }
        bits = numbers.word(index)
      }
      let bit = bits.trailingZeroBitCount
      bits &= bits - 1
      return index * 64 + bit
    }
  }
}
