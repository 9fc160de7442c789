import Plumbing

extension MQTTClient {
  /// What the broker sends, read back as whole packets: the bytes of a packet cut across two
  /// reads wait for the rest.
  struct PacketReader {
    private var received: [UInt8] = []

    enum Received {
      case packets([MQTTPacket])
      /// Nothing whole yet, or the connection was woken: there is something to send.
      case nothing
      case closed
      case broken(String)
    }

    /// What the broker sends within `within`, or sooner when the connection is woken.
    mutating func receive(from connection: ClientConnection, within: Duration) async -> Received {
      switch await connection.receive(within: within) {
      case .quiet, .woken: return .nothing
      case .closed: return .closed
      case .bytes(let bytes): received += bytes
      }
      var packets: [MQTTPacket] = []
      do {
        while let (packet, taken) = try MQTTPacket.read(received[...]) {
          packets.append(packet)
          received.removeFirst(taken)
        }
      } catch {
        return .broken("\(error)")
      }
      // A broker that sends more than a packet's worth without completing one is broken.
      if received.count > MQTTPacket.longestRead + 5 { return .broken("an overlong packet") }
      return packets.isEmpty ? .nothing : .packets(packets)
    }
  }
}
