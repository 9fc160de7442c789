/// A u-blox receiver's interfaces, as its configuration numbers them (`CFG-PRT`'s `portID`,
/// `CFG-MSG`'s rate slots, `UBX-MON-COMMS`' `portId` high byte). A USB receiver is read on its
/// own USB port far more often than through UART1: settings of the other port change nothing
/// the host sees.
package enum UBXPort: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  case i2c = 0
  case uart1 = 1
  case uart2 = 2
  case usb = 3
  case spi = 4

  package var description: String {
    switch self {
    case .i2c: "I2C"
    case .uart1: "UART1"
    case .uart2: "UART2"
    case .usb: "USB"
    case .spi: "SPI"
    }
  }

  /// Whether it is a serial line with a baud rate.
  package var hasBaudRate: Bool { self == .uart1 || self == .uart2 }
}

/// `UBX-MON-COMMS` (generation 9 and later): each port's traffic so far. The port the host
/// talks through is the one whose received bytes grow with what the host sends.
package struct UBXCommunications: Hashable, Sendable {
  package static let message: (UInt8, UInt8) = (0x0A, 0x36)

  /// Bytes each port received and sent so far.
  package var received: [UBXPort: UInt32]
  package var sent: [UBXPort: UInt32]

  package init(received: [UBXPort: UInt32], sent: [UBXPort: UInt32] = [:]) {
    self.received = received
    self.sent = sent
  }

  /// The counters an answer holds: an 8-byte head (version 0, the number of ports), then 40
  /// bytes a port (`portId`, `txPending`, `txBytes`, usages, `rxPending`, `rxBytes`, …).
  package init?(_ frame: UBXFrame) {
    let payload = frame.payload
    guard frame.is(Self.message), payload.count >= 8, payload[0] == 0 else { return nil }
    let count = Int(payload[1])
    guard payload.count >= 8 + 40 * count else { return nil }
    var received: [UBXPort: UInt32] = [:]
    var sent: [UBXPort: UInt32] = [:]
    for index in 0..<count {
      let block = 8 + 40 * index
      guard let port = UBXPort(rawValue: payload[block + 1]) else { continue }
      sent[port] = UInt32(payload[littleEndian: block + 4, size: 4])
      received[port] = UInt32(payload[littleEndian: block + 12, size: 4])
    }
    self.init(received: received, sent: sent)
  }

  /// The answer, as a receiver writes it.
  package var frame: UBXFrame {
    let ports = UBXPort.allCases.filter { received[$0] != nil || sent[$0] != nil }
    var payload: [UInt8] = [0, UInt8(ports.count), 0, 0, 0xE0, 0xF5, 0xFF, 0xFF]
    for port in ports {
      var block = [UInt8](repeating: 0, count: 40)
      block[1] = port.rawValue
      block[littleEndian: 4, size: 4] = Int(sent[port] ?? 0)
      block[littleEndian: 12, size: 4] = Int(received[port] ?? 0)
      payload += block
    }
    return UBXFrame(messageClass: Self.message.0, id: Self.message.1, payload: payload)
  }

  package static var poll: UBXFrame { .poll(message) }

  /// The port whose received bytes grew by at least `sent` bytes from `earlier` to `self`
  /// (what the host sent in between), when exactly one did.
  package func portReceiving(_ sent: Int, since earlier: UBXCommunications) -> UBXPort? {
    let grown = received.filter { port, count in count &- (earlier.received[port] ?? count) >= UInt32(sent) }.map(\.key)
    return grown.count == 1 ? grown[0] : nil
  }
}
