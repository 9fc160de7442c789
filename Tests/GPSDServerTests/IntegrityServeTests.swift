import Foundation
import Framing
import GPSDServer
import NMEASimulation
import TestHelpers
import Testing

/// What a u-blox says of its antenna and of jamming (`MON-HW`, beside its NMEA) reaches gpsd's
/// clients in TPV as gpsd 3.26 and later put it (`ant` only when open or shorted, `antPwr`
/// when known, `jam` when not 0), from the epoch it is said before, and not earlier.
@Suite(.timeLimit(.minutes(2))) struct IntegrityServeTests {
  static func hardware(antenna: Int, power: Int, jamming: Int, indicator: Int) -> [UInt8] {
    var payload = [UInt8](repeating: 0, count: 60)
    (payload[20], payload[21], payload[22], payload[45]) = (UInt8(antenna), UInt8(power), UInt8(jamming << 2), UInt8(indicator))
    return UBXFrame(messageClass: 0x0A, id: 0x09, payload: payload).bytes
  }

  @Test func theAntennaAndJammingAreServedInTPVAsGPSDServesThem() async throws {
    let epochs = Array(UBXOnlyServeTests.simulation.epochs())
    let open = Self.hardware(antenna: 4, power: 1, jamming: 1, indicator: 0)
    let jammed = Self.hardware(antenna: 2, power: 1, jamming: 2, indicator: 37)
    let bursts = epochs.enumerated().map { index, epoch in (index == 4 ? open : index == 8 ? jammed : []) + epoch.bytes }
    let served = try await UBXOnlyServeTests.served(bursts)

    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let tpvs = UBXOnlyServeTests.byTime(served, "TPV")
    var compared = 0
    for (index, epoch) in epochs.enumerated() {
      guard let tpv = tpvs[formatter.string(from: Date(timeIntervalSince1970: epoch.truth.time.secondsSince1970))] else { continue }
      compared += 1
      let said = (tpv["ant"] as? Int, tpv["antPwr"] as? Int, tpv["jam"] as? Int)
      switch index {
      case ..<4: #expect(said == (nil, nil, nil), "epoch \(index): \(tpv)")
      case 4..<8: #expect(said == (2, 2, nil), "epoch \(index): \(tpv)")
      default: #expect(said == (nil, 2, 37), "epoch \(index): \(tpv)")
      }
    }
    #expect(compared >= epochs.count - 3, "\(tpvs.keys.sorted())")
  }
}
