/// One RTCM 3 message as framed on the wire: `D3`, six reserved zero bits and a 10-bit length,
/// the message (its first 12 bits are its number), and a CRC-24Q over all before it.
public struct RTCM3Frame: Hashable, Sendable {
  /// The message, without the frame's header and CRC.
  public var message: [UInt8]

  public init(message: [UInt8]) {
    self.message = message
  }

  public static let preamble: UInt8 = 0xD3
  /// The longest message a frame holds (a 10-bit length).
  public static let longestMessage = 1023

  /// The message number (1005 a station's position, 1074 GPS MSM4…), or `nil` for a message
  /// too short to have one.
  public var messageNumber: Int? {
    guard message.count >= 2 else { return nil }
    return Int(message[0]) << 4 | Int(message[1]) >> 4
  }

  /// The frame as sent on the wire.
  public var bytes: [UInt8] {
    var bytes: [UInt8] = [Self.preamble, UInt8(message.count >> 8 & 0x03), UInt8(message.count & 0xFF)]
    bytes += message
    let crc = Self.crc24q(bytes)
    bytes += [UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    return bytes
  }

  /// CRC-24Q (Qualcomm), the checksum of RTCM 3 frames: polynomial 0x1864CFB, no reflection,
  /// initial value 0.
  public static func crc24q(_ bytes: some Collection<UInt8>) -> UInt32 {
    var crc: UInt32 = 0
    for byte in bytes {
      crc ^= UInt32(byte) << 16
      for _ in 0..<8 {
        crc <<= 1
        if crc & 0x100_0000 != 0 { crc ^= 0x186_4CFB }
      }
    }
    return crc & 0xFF_FFFF
  }

  /// The frame at the start of `bytes`, as ``UBXFrame`` parses its own.
  static func parse(_ bytes: UnsafeRawBufferPointer) -> ParseResult<RTCM3Frame> {
    guard bytes.count >= 1, bytes[0] == preamble else { return .invalid }
    guard bytes.count >= 3 else { return .needMore }
    guard bytes[1] & 0xFC == 0 else { return .invalid }
    let length = Int(bytes[1] & 0x03) << 8 | Int(bytes[2])
    let total = 3 + length + 3
    guard bytes.count >= total else { return .needMore }
    let crc = crc24q(UnsafeRawBufferPointer(rebasing: bytes[0..<(3 + length)]))
    let sent = UInt32(bytes[3 + length]) << 16 | UInt32(bytes[4 + length]) << 8 | UInt32(bytes[5 + length])
    guard crc == sent else { return .rejected(.badChecksum) }
    return .frame(RTCM3Frame(message: Array(bytes[3..<(3 + length)])), length: total)
  }
}
