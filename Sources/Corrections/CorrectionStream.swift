import Framing
import Trigonometry

/// A correction stream checked frame by frame: RTCM 3's preamble, length and CRC-24Q. Whole
/// frames come out, in order; what fails is counted by reason and dropped, never forwarded.
/// It also counts the message types, and keeps the reference station's position from its
/// 1005 or 1006. Bounded: at most one frame is held between reads.
package struct CorrectionStream: Sendable {
  private var splitter = StreamSplitter(stages: [.rtcm3])
  /// Frames taken, by message number.
  package private(set) var messageTypes: [Int: Int] = [:]
  /// Bytes that were no frame (noise between frames, the starts of frames that failed).
  package private(set) var noiseBytes = 0
  /// The reference station, from its latest 1005 or 1006.
  package private(set) var station: ReferenceStation?

  package init() {}

  /// Frames thrown away, by reason ("bad checksum", "overlong").
  package var rejects: [String: Int] {
    var rejects: [String: Int] = [:]
    for (reason, count) in splitter.counters.rejected[.rtcm3] ?? [:] { rejects[reason.rawValue] = count }
    return rejects
  }

  /// The frames `bytes` complete, in order.
  package mutating func take(_ bytes: [UInt8]) -> [RTCM3Frame] {
    var frames: [RTCM3Frame] = []
    var splitter = self.splitter
    var noise = 0
    bytes.withUnsafeBytes { raw in
      splitter.split(
        raw, text: { noise += $0.count },
        frame: { frame in if case .rtcm3(let rtcm) = frame { frames.append(rtcm) } })
    }
    self.splitter = splitter
    noiseBytes += noise
    for frame in frames {
      guard let number = frame.messageNumber else { continue }
      messageTypes[number, default: 0] += 1
      if number == 1005 || number == 1006, let station = ReferenceStation(frame.message) { self.station = station }
    }
    return frames
  }
}

/// A reference station as RTCM 3's message 1005 or 1006 gives it: its id and its antenna's
/// position (ECEF, metres), and that position as latitude and longitude.
package struct ReferenceStation: Sendable, Equatable {
  package var id: Int
  package var x: Double
  package var y: Double
  package var z: Double

  package init(id: Int, x: Double, y: Double, z: Double) {
    self.id = id
    self.x = x
    self.y = y
    self.z = z
  }

  /// The station of a 1005 or 1006 message; `nil` for a message too short to be one.
  package init?(_ message: [UInt8]) {
    var bits = BitReader(message)
    guard message.count >= 19, let number = bits.unsigned(12), number == 1005 || number == 1006, let id = bits.unsigned(12) else {
      return nil
    }
    // ITRF year (6), GPS, GLONASS, Galileo and reference-station indicators (4).
    _ = bits.unsigned(10)
    guard let x = bits.signed(38) else { return nil }
    _ = bits.unsigned(2)  // single receiver oscillator, reserved
    guard let y = bits.signed(38) else { return nil }
    _ = bits.unsigned(2)  // quarter cycle indicator
    guard let z = bits.signed(38) else { return nil }
    self.init(id: id, x: Double(x) * 0.0001, y: Double(y) * 0.0001, z: Double(z) * 0.0001)
  }

  /// Latitude and longitude (degrees, WGS-84), from the ECEF position by Bowring's method.
  package var coordinate: (latitude: Double, longitude: Double) {
    let a = 6_378_137.0, f = 1 / 298.257223563
    let b = a * (1 - f), e2 = f * (2 - f), ep2 = e2 / (1 - e2)
    let p = (x * x + y * y).squareRoot()
    let theta = arcTangent2(z * a, p * b)
    let latitude = arcTangent2(
      z + ep2 * b * sine(theta) * sine(theta) * sine(theta), p - e2 * a * cosine(theta) * cosine(theta) * cosine(theta))
    let degrees = 180 / Double.pi
    return (latitude * degrees, arcTangent2(y, x) * degrees)
  }

  /// Metres from the station to a position (great circle, on the ground).
  package func distance(toLatitude latitude: Double, longitude: Double) -> Double {
    let own = coordinate
    return GreatCircle.distance(own.latitude, own.longitude, latitude, longitude)
  }

  /// Beyond about this far from its base, RTK degrades (fixes take longer, and float more).
  package static let rtkRange = 30_000.0
}
