/// Reads big-endian bit fields, as RTCM 3 packs them.
package struct BitReader {
  private let bytes: [UInt8]
  private var position = 0

  package init(_ bytes: [UInt8]) { self.bytes = bytes }

  package mutating func unsigned(_ count: Int) -> Int? {
    guard count <= 63, position + count <= bytes.count * 8 else { return nil }
    var value = 0
    for _ in 0..<count {
      value = value << 1 | Int(bytes[position / 8] >> (7 - position % 8) & 1)
      position += 1
    }
    return value
  }

  package mutating func signed(_ count: Int) -> Int? {
    guard let value = unsigned(count) else { return nil }
    return value & 1 << (count - 1) != 0 ? value - 1 << count : value
  }
}

/// Writes big-endian bit fields, as RTCM 3 packs them.
package struct BitWriter {
  package private(set) var bytes: [UInt8] = []
  private var count = 0

  package init() {}

  package mutating func append(_ value: Int, bits: Int) {
    for bit in stride(from: bits - 1, through: 0, by: -1) {
      if count % 8 == 0 { bytes.append(0) }
      if value >> bit & 1 != 0 { bytes[bytes.count - 1] |= 0x80 >> UInt8(count % 8) }
      count += 1
    }
  }
}
