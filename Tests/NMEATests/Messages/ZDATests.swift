import NMEA
import Testing

@Suite struct ZDATests {
  @Test(arguments: talkers)
  func readsFullDate(_ talker: String) throws {
    let zda = try decode("\(talker)ZDA,201530.00,04,07,2002,-05,30", ZDA.init)
    #expect(zda.time == UTCTime(hour: 20, minute: 15, second: 30))
    #expect(zda.date == UTCDate(year: 2002, month: 7, day: 4))
    #expect(zda.localZoneHours == -5 && zda.localZoneMinutes == 30)
  }

  @Test func emptyDateBeforeTheReceiverKnowsIt() throws {
    let zda = try decode("GPZDA,201530.00,,,,,", ZDA.init)
    #expect(zda.date == nil)
  }

  @Test(arguments: [
    "GPZDA,201530.00,31,02,2024,00,00", "GPZDA,201530.00,04,07,,00,00", "GPZDA,201530.00,04,07,999999999999999,00,00",
    "GPZDA,201530.00,04,07,1979,00,00",
  ])
  func rejectsImpossibleOrPartialDates(_ body: String) {
    #expect(throws: NMEAError.invalidField(.zda, field: 2)) { try decode(body, ZDA.init) }
  }
}
