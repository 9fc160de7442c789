import NMEA
import Testing

@Suite struct TXTTests {
  @Test(arguments: talkers)
  func readsTextWithCommas(_ talker: String) throws {
    let txt = try decode("\(talker)TXT,01,01,02,HW UBX-M8030 00080000, ROM CORE 3.01", TXT.init)
    #expect(txt.messageCount == 1 && txt.messageNumber == 1 && txt.identifier == 2)
    #expect(txt.text == "HW UBX-M8030 00080000, ROM CORE 3.01")
  }
}
