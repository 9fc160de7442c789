import Framing
import NMEA

/// What a simulated u-blox sends for one epoch when it speaks UBX: `NAV-PVT`, `NAV-DOP` and
/// `NAV-EOE`, laid out as u-blox's interface description lays them out, from the route's truth.
enum UBXNavigationWriter {
  /// The epoch at `truth` as UBX frames' bytes.
  static func epoch(_ truth: RouteState, hdop: Double) -> [UInt8] {
    let time = truth.time
    let date = time.date
    let clock = time.time
    // GPS time of week, milliseconds (leap seconds aside: the simulator keeps UTC).
    let weekMilliseconds: Int64 = 7 * 86_400_000
    let timeOfWeek = UInt32(truncatingIfNeeded: ((time.nanosecondsSince1970 / 1_000_000) + 4 * 86_400_000) % weekMilliseconds)
    var pvt = [UInt8](repeating: 0, count: 92)
    func put(_ value: Int64, at offset: Int, size: Int) {
      for index in 0..<size { pvt[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * Int64(index))) }
    }
    put(Int64(timeOfWeek), at: 0, size: 4)
    put(Int64(date.year), at: 4, size: 2)
    pvt[6] = UInt8(date.month)
    pvt[7] = UInt8(date.day)
    pvt[8] = UInt8(clock.hour)
    pvt[9] = UInt8(clock.minute)
    pvt[10] = UInt8(clock.second)
    pvt[11] = 0x07  // date and time valid, fully resolved
    put(Int64(clock.nanosecond), at: 16, size: 4)
    pvt[20] = truth.hasFix ? 3 : 0
    pvt[21] = truth.hasFix ? 0x01 : 0
    pvt[23] = truth.hasFix ? 12 : 0
    put(Int64((truth.longitude * 1e7).rounded()), at: 24, size: 4)
    put(Int64((truth.latitude * 1e7).rounded()), at: 28, size: 4)
    put(Int64(((truth.altitude + ReceiverWriter.geoidSeparation) * 1000).rounded()), at: 32, size: 4)
    put(Int64((truth.altitude * 1000).rounded()), at: 36, size: 4)
    put(Int64((hdop * 2.5 * 1000).rounded()), at: 40, size: 4)
    put(Int64((hdop * 4 * 1000).rounded()), at: 44, size: 4)
    put(Int64((truth.speed * 1000).rounded()), at: 60, size: 4)
    put(Int64((truth.course * 1e5).rounded()), at: 64, size: 4)
    put(Int64((hdop * 1.5 * 100).rounded()), at: 76, size: 2)
    var dop = [UInt8](repeating: 0, count: 18)
    for index in 0..<4 { dop[index] = UInt8(truncatingIfNeeded: timeOfWeek >> (8 * UInt32(index))) }
    let hundredths = { (value: Double) -> [UInt8] in
      let scaled = UInt16((value * 100).rounded())
      return [UInt8(scaled & 0xFF), UInt8(scaled >> 8)]
    }
    dop.replaceSubrange(6..<8, with: hundredths(hdop * 1.5))  // pDOP
    dop.replaceSubrange(10..<12, with: hundredths(hdop * 1.6))  // vDOP
    dop.replaceSubrange(12..<14, with: hundredths(hdop))  // hDOP
    return UBXFrame(messageClass: 0x01, id: 0x07, payload: pvt).bytes + UBXFrame(messageClass: 0x01, id: 0x04, payload: dop).bytes
      + UBXFrame(messageClass: 0x01, id: 0x61, payload: Array(dop[0..<4])).bytes
  }
}
