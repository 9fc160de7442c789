import Framing
import NMEA

/// What a simulated u-blox sends for one epoch when it speaks UBX: `NAV-PVT`, `NAV-SAT`,
/// `NAV-DOP` and `NAV-EOE`, laid out as u-blox's interface description lays them out, from the
/// route's truth and the sky its sentences list.
enum UBXNavigationWriter {
  /// u-blox's system IDs, by GSV talker.
  static let systems: [String: UInt8] = ["GP": 0, "GA": 2, "GB": 3, "GL": 6]

  /// The epoch at `truth` as UBX frames' bytes; `view` is the sky, of which (as in its
  /// sentences) the first twelve tracked satellites of each system are used.
  static func epoch(_ truth: RouteState, hdop: Double, view: [Sky.View]) -> [UInt8] {
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
    var used: Set<Sky.Satellite> = []
    for talker in systems.keys {
      used.formUnion(view.filter { $0.satellite.talker == talker && $0.snr != nil }.prefix(12).map(\.satellite))
    }
    pvt[23] = truth.hasFix ? UInt8(used.count) : 0
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
    var sat: [UInt8] = Array(dop[0..<4]) + [1, UInt8(view.count), 0, 0]
    for satellite in view {
      guard let system = systems[satellite.satellite.talker] else { continue }
      // GLONASS by its slot, as u-blox numbers it (NMEA's 65–88 less 64).
      let number = satellite.satellite.number - (system == 6 ? 64 : 0)
      let isUsed = truth.hasFix && used.contains(satellite.satellite)
      // Quality 4 (code locked) when tracked, 1 (searching) when not; bit 3 used.
      let flags: UInt32 = (satellite.snr == nil ? 1 : 4) | (isUsed ? 0x08 : 0)
      sat += [system, UInt8(number), UInt8(satellite.snr ?? 0), UInt8(bitPattern: Int8(satellite.elevation))]
      sat += [UInt8(satellite.azimuth & 0xFF), UInt8(satellite.azimuth >> 8), 0, 0]
      sat += (0..<4).map { UInt8(truncatingIfNeeded: flags >> (8 * UInt32($0))) }
    }
    sat[5] = UInt8((sat.count - 8) / 12)
    return UBXFrame(messageClass: 0x01, id: 0x07, payload: pvt).bytes + UBXFrame(messageClass: 0x01, id: 0x35, payload: sat).bytes
      + UBXFrame(messageClass: 0x01, id: 0x04, payload: dop).bytes
      + UBXFrame(messageClass: 0x01, id: 0x61, payload: Array(dop[0..<4])).bytes
  }
}
