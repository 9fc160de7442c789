/// One u-blox UBX packet: `B5 62`, class, id, a little-endian length, the payload, and an
/// 8-bit Fletcher checksum over class through payload.
public struct UBXFrame: Hashable, Sendable {
  public var messageClass: UInt8
  public var id: UInt8
  public var payload: [UInt8]

  public init(messageClass: UInt8, id: UInt8, payload: [UInt8] = []) {
    self.messageClass = messageClass
    self.id = id
    self.payload = payload
  }

  /// The two sync bytes every packet starts with.
  public static let sync: (UInt8, UInt8) = (0xB5, 0x62)
  /// Sync, class, id and length before the payload; the checksum after it.
  static let overhead = 8
  /// The longest payload taken as a packet; a longer length is line noise, not a packet
  /// (u-blox's largest, a raw-measurement epoch of many signals, stays well under it).
  public static let longestPayload = 8192

  /// The packet as sent on the wire.
  public var bytes: [UInt8] {
    let count = UInt16(payload.count)
    var bytes: [UInt8] = [Self.sync.0, Self.sync.1, messageClass, id, UInt8(count & 0xFF), UInt8(count >> 8)]
    bytes += payload
    let (a, b) = Self.checksum(bytes[2...])
    bytes += [a, b]
    return bytes
  }

  /// The 8-bit Fletcher checksum of `body` (class through payload).
  public static func checksum(_ body: some Collection<UInt8>) -> (UInt8, UInt8) {
    var a: UInt8 = 0
    var b: UInt8 = 0
    for byte in body {
      a &+= byte
      b &+= a
    }
    return (a, b)
  }

  /// The packet at the start of `bytes`: `.frame` and its length, `.needMore` when `bytes`
  /// stop before its end, `.invalid` when the start is no packet (a bad checksum, a length
  /// beyond ``longestPayload``).
  static func parse(_ bytes: UnsafeRawBufferPointer) -> ParseResult<UBXFrame> {
    guard bytes.count >= 2 else { return bytes.count == 1 && bytes[0] == sync.0 ? .needMore : .invalid }
    guard bytes[0] == sync.0, bytes[1] == sync.1 else { return .invalid }
    guard bytes.count >= 6 else { return .needMore }
    let length = Int(bytes[4]) | Int(bytes[5]) << 8
    guard length <= longestPayload else { return .rejected(.overlong) }
    let total = length + overhead
    guard bytes.count >= total else { return .needMore }
    let (a, b) = checksum(UnsafeRawBufferPointer(rebasing: bytes[2..<(6 + length)]))
    guard bytes[6 + length] == a, bytes[7 + length] == b else { return .rejected(.badChecksum) }
    let frame = UBXFrame(messageClass: bytes[2], id: bytes[3], payload: Array(bytes[6..<(6 + length)]))
    return .frame(frame, length: total)
  }
}

/// What a stage finds at the start of the bytes it is shown.
enum ParseResult<Frame> {
  case frame(Frame, length: Int)
  case needMore
  /// Not the protocol's start after all (its sync bytes did not follow).
  case invalid
  /// The protocol's start, and a frame that cannot be: dropped and counted, its bytes then
  /// read as text.
  case rejected(FrameRejection)
}

/// Why a binary frame whose start was seen was thrown away.
public enum FrameRejection: String, Hashable, Sendable, CaseIterable {
  /// Its checksum (UBX's Fletcher, RTCM 3's CRC-24Q) does not match its bytes.
  case badChecksum = "bad checksum"
  /// Its length is beyond what the protocol allows, or the bound gpsbridge keeps.
  case overlong
}
