/// The MQTT 3.1.1 packets a publisher sends and the ones it reads back: written to bytes and
/// read from them, pure. (OASIS MQTT Version 3.1.1, sections 2 and 3.)
package enum MQTTPacket: Equatable, Sendable {
  case connect(Connect)
  case connectAcknowledged(sessionPresent: Bool, returnCode: UInt8)
  case publish(Publish)
  case publishAcknowledged(packetID: UInt16)
  case pingRequest
  case pingResponse
  case disconnect

  package struct Connect: Equatable, Sendable {
    package var clientID: String
    package var keepAlive: UInt16
    package var user: String?
    package var password: String?
    /// The last will: published by the broker, retained, when the connection dies unclean.
    package var will: Publish?
  }

  package struct Publish: Equatable, Sendable {
    package var topic: String
    package var payload: [UInt8]
    package var qos: UInt8 = 0
    package var retain = false
    package var duplicate = false
    /// Set for QoS 1.
    package var packetID: UInt16?

    package init(topic: String, payload: [UInt8], qos: UInt8 = 0, retain: Bool = false) {
      self.topic = topic
      self.payload = payload
      self.qos = qos
      self.retain = retain
    }
  }

  /// The packet on the wire.
  package var bytes: [UInt8] {
    switch self {
    case .connect(let connect):
      var flags: UInt8 = 0x02  // a clean session
      var payload = Self.string(connect.clientID)
      if let will = connect.will {
        flags |= 0x04 | (will.qos << 3) | (will.retain ? 0x20 : 0)
        payload += Self.string(will.topic) + Self.length16(will.payload.count) + will.payload
      }
      if let user = connect.user {
        flags |= 0x80
        payload += Self.string(user)
      }
      if let password = connect.password {
        flags |= 0x40
        payload += Self.string(password)
      }
      let header = Self.string("MQTT") + [4, flags] + Self.length16(Int(connect.keepAlive))
      return Self.packet(0x10, header + payload)
    case .connectAcknowledged(let present, let code):
      return Self.packet(0x20, [present ? 1 : 0, code])
    case .publish(let publish):
      let first = 0x30 | (publish.duplicate ? 0x08 : 0) | (publish.qos << 1) | (publish.retain ? 1 : 0)
      var body = Self.string(publish.topic)
      if publish.qos > 0 { body += Self.length16(Int(publish.packetID ?? 0)) }
      return Self.packet(first, body + publish.payload)
    case .publishAcknowledged(let id): return Self.packet(0x40, Self.length16(Int(id)))
    case .pingRequest: return [0xC0, 0]
    case .pingResponse: return [0xD0, 0]
    case .disconnect: return [0xE0, 0]
    }
  }

  /// The most a packet read back may hold: a broker only sends short acknowledgements to a
  /// publisher, so anything longer is a broken or hostile peer.
  package static let longestRead = 4096

  package enum ReadError: Error, Equatable {
    /// A length that is malformed or longer than ``longestRead``.
    case badLength
    /// A packet a broker does not send to a client that never subscribes.
    case unexpected(UInt8)
  }

  /// The first whole packet in `bytes` and how many bytes it took; `nil` while it is
  /// incomplete.
  package static func read(_ bytes: ArraySlice<UInt8>) throws(ReadError) -> (MQTTPacket, Int)? {
    guard let first = bytes.first else { return nil }
    var length = 0
    var multiplier = 1
    var index = bytes.startIndex + 1
    while true {
      guard index < bytes.endIndex else { return nil }
      let byte = bytes[index]
      length += Int(byte & 0x7F) * multiplier
      index += 1
      if byte & 0x80 == 0 { break }
      multiplier *= 128
      guard multiplier <= 128 * 128 * 128 else { throw .badLength }
    }
    guard length <= longestRead else { throw .badLength }
    guard bytes.endIndex - index >= length else { return nil }
    let body = bytes[index..<index + length]
    let taken = index + length - bytes.startIndex
    switch first >> 4 {
    case 2:
      guard length == 2 else { throw .badLength }
      return (.connectAcknowledged(sessionPresent: body.first! & 1 == 1, returnCode: body.last!), taken)
    case 4:
      guard length == 2 else { throw .badLength }
      return (.publishAcknowledged(packetID: UInt16(body.first!) << 8 | UInt16(body.last!)), taken)
    case 13:
      guard length == 0 else { throw .badLength }
      return (.pingResponse, taken)
    default:
      throw .unexpected(first)
    }
  }

  private static func packet(_ first: UInt8, _ body: [UInt8]) -> [UInt8] {
    var bytes = [first]
    var length = body.count
    repeat {
      var byte = UInt8(length % 128)
      length /= 128
      if length > 0 { byte |= 0x80 }
      bytes.append(byte)
    } while length > 0
    return bytes + body
  }

  private static func length16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

  private static func string(_ text: String) -> [UInt8] {
    let utf8 = Array(text.utf8.prefix(65_535))
    return length16(utf8.count) + utf8
  }
}
