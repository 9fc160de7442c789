import Framing
import Testing
import Transports

/// Binary frames a receiver sends broken are said with the sentences thrown away, by reason.
@Suite struct FrameRejectionTests {
  @Test func aBrokenUBXFrameIsSaidAmongTheRejects() async {
    let gga = Array("$GPGGA,101519.00,4722.6140,N,00832.5020,E,1,12,0.8,408.0,M,47.3,M,,*68\r\n".utf8)
    let rmc = Array("$GPRMC,101519.00,A,4722.6140,N,00832.5020,E,0.0,0.0,010524,,,A*5F\r\n".utf8)
    var broken = UBXFrame(messageClass: 0x01, id: 0x07, payload: Array(repeating: 0, count: 92)).bytes
    broken[broken.count - 1] ^= 0x55
    let stream = gga + rmc + broken + gga + rmc
    let receiver = Receiver(ReplaySource(capture: .bytes(stream), speed: .max, clock: ContinuousClock()))
    let events = receiver.events(wanting: .fixes)
    let running = Task { await receiver.run() }
    var rejected: [String] = []
    var fixes = 0
    for await event in events {
      if case .rejected(let summary) = event { rejected.append(summary) }
      if case .fix = event { fixes += 1 }
      if case .status(.ended) = event { break }
    }
    running.cancel()
    #expect(rejected.last == "1 UBX bad checksum", "\(rejected)")
    #expect(fixes >= 1)
  }
}
