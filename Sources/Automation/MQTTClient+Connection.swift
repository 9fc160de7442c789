import Plumbing

extension MQTTClient {
  /// One connection to a broker: whole packets out (waiting for room, 5 s at most), and what
  /// the broker sends read back as whole packets.
  struct Connection {
    let socket: FileDescriptor
    private var received: [UInt8] = []

    init(socket: FileDescriptor) { self.socket = socket }

    enum Received {
      case packets([MQTTPacket])
      case nothing
      case closed
      case broken(String)
    }

    /// Sends all of `bytes`; false when the broker is gone or takes nothing for 5 s.
    func send(_ bytes: [UInt8]) -> Bool { socket.sendAll(bytes) }

    /// What the broker sends within `within`, or sooner when `wake` is signalled.
    mutating func receive(within: Duration, wake: Int32) -> Received {
      var descriptors = [
        pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
      ]
      let milliseconds = Int32(within.components.seconds * 1000 + within.components.attoseconds / 1_000_000_000_000_000)
      guard poll(&descriptors, 2, max(milliseconds, 1)) > 0 else { return .nothing }
      if descriptors[1].revents != 0 {
        var drained = [UInt8](repeating: 0, count: 64)
        _ = read(wake, &drained, 64)
      }
      guard descriptors[0].revents != 0 else { return .nothing }
      var buffer = [UInt8](repeating: 0, count: 4096)
      let count = (try? socket.read(into: &buffer)) ?? -1
      guard count > 0 else { return .closed }
      received += buffer[0..<count]
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
