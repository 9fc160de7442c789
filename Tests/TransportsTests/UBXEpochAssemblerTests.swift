import Framing
import NMEA
import Testing

@testable import Transports

/// UBX navigation messages made into one fix per epoch: closed exactly by NAV-EOE, or by the
/// next epoch's first message; a date only when the receiver has resolved it; a position only
/// when it calls its fix OK.
@Suite struct UBXEpochAssemblerTests {
  /// A NAV-PVT payload with the fields these tests set, the rest zero.
  static func pvt(
    timeOfWeek: UInt32, second: Int = 19, nanosecond: Int32 = 0, valid: UInt8 = 0x07, fixType: UInt8 = 3, fixOK: Bool = true,
    latitude: Double = 47.3769, longitude: Double = 8.5417
  ) -> UBXFrame {
    var payload = [UInt8](repeating: 0, count: 92)
    func put(_ value: UInt32, at offset: Int) {
      for i in 0..<4 { payload[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }
    put(timeOfWeek, at: 0)
    payload[4] = 0xE8
    payload[5] = 0x07  // 2024
    payload[6] = 5
    payload[7] = 1
    payload[8] = 23
    payload[9] = 59
    payload[10] = UInt8(second)
    payload[11] = valid
    put(UInt32(bitPattern: nanosecond), at: 16)
    payload[20] = fixType
    payload[21] = fixOK ? 0x01 : 0
    payload[23] = 9
    put(UInt32(bitPattern: Int32((longitude * 1e7).rounded())), at: 24)
    put(UInt32(bitPattern: Int32((latitude * 1e7).rounded())), at: 28)
    put(455_300, at: 32)
    put(408_000, at: 36)
    put(1500, at: 40)
    put(2500, at: 44)
    return UBXFrame(messageClass: 0x01, id: 0x07, payload: payload)
  }

  static func endOfEpoch(_ timeOfWeek: UInt32) -> UBXFrame {
    UBXFrame(messageClass: 0x01, id: 0x61, payload: (0..<4).map { UInt8(truncatingIfNeeded: timeOfWeek >> (8 * UInt32($0))) })
  }

  @Test func endOfEpochClosesItAtOnce() throws {
    var assembler = UBXEpochAssembler()
    assembler.take(Self.pvt(timeOfWeek: 1000))
    #expect(assembler.next() == nil)
    assembler.take(Self.endOfEpoch(1000))
    let next = assembler.next()
    let fix = try #require(next)
    #expect(fix.timestamp?.description == "2024-05-01T23:59:19.000Z")
    #expect(fix.mode == .threeD && fix.quality == .gps && fix.satellitesUsed == 9)
    #expect(fix.altitude == 408 && fix.geoidSeparation == 47.3 && fix.horizontalAccuracy == 1.5 && fix.verticalAccuracy == 2.5)
    #expect(fix.latitude.map { abs($0 - 47.3769) < 1e-9 } == true)
  }

  @Test func withoutEndOfEpochTheNextEpochClosesIt() {
    var assembler = UBXEpochAssembler()
    assembler.take(Self.pvt(timeOfWeek: 1000))
    assembler.take(Self.pvt(timeOfWeek: 2000, second: 20))
    #expect(assembler.next()?.time.second == 19)
    #expect(assembler.next() == nil)
    assembler.finish()
    #expect(assembler.next()?.time.second == 20)
  }

  @Test func anUnresolvedDateIsNoDateAndAFixNotOKIsNoPosition() throws {
    var assembler = UBXEpochAssembler()
    assembler.take(Self.pvt(timeOfWeek: 1000, valid: 0x03, fixOK: false))
    assembler.take(Self.endOfEpoch(1000))
    let next = assembler.next()
    let fix = try #require(next)
    #expect(fix.timestamp == nil && fix.time.second == 19)
    #expect(!fix.hasPosition && fix.latitude == nil && fix.mode == .none)
  }

  @Test func aNegativeNanosecondIsBeforeTheSecond() {
    var assembler = UBXEpochAssembler()
    assembler.take(Self.pvt(timeOfWeek: 1000, second: 19, nanosecond: -500_000_000))
    assembler.take(Self.endOfEpoch(1000))
    let next = assembler.next()
    #expect(next?.timestamp?.description == "2024-05-01T23:59:18.500Z")
  }
}
