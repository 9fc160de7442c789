import Framing
import Plumbing

/// A plausible RTCM 3 stream for a simulated reference station: each second a 1005 (the
/// station's antenna position, exact) and a GPS MSM4 (1074) whose content is synthetic but
/// well formed: a satellite and signal mask, rough and fine ranges, lock times and carrier to
/// noise, as a real base sends them. Enough to feed a caster and a simulated rover; no rover
/// could compute a position from it.
public struct RTCMWriter: Sendable {
  /// The station's id (12 bits) and its antenna, ECEF metres.
  public var stationID: Int
  public var x: Double, y: Double, z: Double

  /// A station at `latitude`, `longitude` (degrees) and `height` (metres above WGS-84).
  public init(stationID: Int = 1234, latitude: Double, longitude: Double, height: Double) {
    self.stationID = stationID
    let a = 6_378_137.0, f = 1 / 298.257223563, e2 = f * (2 - f)
    let radians = Double.pi / 180
    let (sinLatitude, cosLatitude) = (sin(latitude * radians), cos(latitude * radians))
    let n = a / (1 - e2 * sinLatitude * sinLatitude).squareRoot()
    x = (n + height) * cosLatitude * cos(longitude * radians)
    y = (n + height) * cosLatitude * sin(longitude * radians)
    z = (n * (1 - e2) + height) * sinLatitude
  }

  /// The frames of the second that starts at `secondOfWeek` (GPS time, seconds).
  public func frames(secondOfWeek: Int) -> [RTCM3Frame] {
    [RTCM3Frame(message: stationMessage()), RTCM3Frame(message: msm4(secondOfWeek: secondOfWeek))]
  }

  /// The bytes of `seconds` seconds of stream, from `start` (GPS seconds of the week).
  public func stream(seconds: Int, start: Int = 0) -> [UInt8] {
    (0..<seconds).flatMap { frames(secondOfWeek: (start + $0) % 604_800).flatMap(\.bytes) }
  }

  /// 1005: the station's antenna reference point.
  func stationMessage() -> [UInt8] {
    var bits = BitWriter()
    bits.append(1005, bits: 12)
    bits.append(stationID, bits: 12)
    bits.append(0, bits: 6)  // ITRF realization year
    bits.append(0b1000, bits: 4)  // GPS; no GLONASS, no Galileo; a physical station
    bits.append(Int((x / 0.0001).rounded()), bits: 38)
    bits.append(0, bits: 2)  // single receiver oscillator, reserved
    bits.append(Int((y / 0.0001).rounded()), bits: 38)
    bits.append(0, bits: 2)  // quarter cycle indicator
    bits.append(Int((z / 0.0001).rounded()), bits: 38)
    return bits.bytes
  }

  /// 1074, GPS MSM4: eight satellites, the L1 C/A signal of each.
  func msm4(secondOfWeek: Int) -> [UInt8] {
    let satellites = [2, 5, 7, 9, 13, 15, 18, 20]
    var bits = BitWriter()
    bits.append(1074, bits: 12)
    bits.append(stationID, bits: 12)
    bits.append(secondOfWeek * 1000, bits: 30)  // epoch time, ms of the week
    bits.append(0, bits: 1)  // no more MSMs this epoch
    bits.append(0, bits: 3)  // IODS
    bits.append(0, bits: 7)  // reserved
    bits.append(0, bits: 2)  // clock steering
    bits.append(0, bits: 2)  // external clock
    bits.append(0, bits: 1)  // divergence-free smoothing
    bits.append(0, bits: 3)  // smoothing interval
    for number in 1...64 { bits.append(satellites.contains(number) ? 1 : 0, bits: 1) }
    for signal in 1...32 { bits.append(signal == 2 ? 1 : 0, bits: 1) }  // 1C
    for _ in satellites { bits.append(1, bits: 1) }  // cell mask
    for number in satellites { bits.append(66 + number % 10, bits: 8) }  // rough range, whole ms
    for number in satellites { bits.append(number * 37 % 1024, bits: 10) }  // rough range, 1/1024 ms
    for (index, number) in satellites.enumerated() {
      bits.append((number * 911 + secondOfWeek * 13 + index) % 16_384 - 8192, bits: 15)  // fine pseudorange
    }
    for (index, number) in satellites.enumerated() {
      bits.append((number * 4099 + secondOfWeek * 29 + index) % 2_097_152 - 1_048_576, bits: 22)  // fine phase range
    }
    for _ in satellites { bits.append(15, bits: 4) }  // lock time: locked a long time
    for _ in satellites { bits.append(0, bits: 1) }  // half-cycle ambiguity
    for number in satellites { bits.append(38 + number % 10, bits: 6) }  // C/N0, dB-Hz
    return bits.bytes
  }
}
