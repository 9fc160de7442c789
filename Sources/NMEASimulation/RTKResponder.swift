import Framing
import NMEA

/// A simulated RTK rover (the `rtk` profile, live): without corrections it has a plain GPS
/// fix; with valid RTCM 3 arriving it goes DGPS at once, RTK float after ``floatAfter`` and
/// RTK fixed after ``fixedAfter``; when they stop it falls back to GPS once they are older
/// than ``ageLimit``. Its GGA carries the corrections' age and the station's id (from the
/// 1005/1006 it was sent), as a real rover's does. It takes no commands.
public struct RTKResponder: ReceiverResponder {
  public var rate: Double
  public var sendsUBX: Bool { false }
  public var lineSpeed: Int? { nil }
  public var hostSpeed: Int?

  public static let floatAfter: Duration = .seconds(3)
  public static let fixedAfter: Duration = .seconds(6)
  public static let ageLimit: Duration = .seconds(5)

  /// Since when the rover has had corrections from a radio of its own (not over its serial
  /// line, as a base station's UHF link gives them): as if one arrived every second.
  public var radio: ContinuousClock.Instant?

  /// When corrections started arriving (since the last gap), and the last one.
  private var correctedSince: ContinuousClock.Instant?
  private var lastCorrection: ContinuousClock.Instant?
  private var stationID: Int?
  private let now: @Sendable () -> ContinuousClock.Instant

  public init(rate: Int = 1, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
    self.rate = Double(rate)
    self.now = now
  }

  public mutating func take(_ correction: RTCM3Frame, at now: ContinuousClock.Instant) {
    if let last = lastCorrection, last.duration(to: now) > Self.ageLimit { correctedSince = nil }
    if correctedSince == nil { correctedSince = now }
    lastCorrection = now
    if let number = correction.messageNumber, number == 1005 || number == 1006, correction.message.count >= 3 {
      stationID = (Int(correction.message[1]) & 0x0F) << 8 | Int(correction.message[2])
    }
  }

  /// The fix quality now: GGA's digit (1 GPS, 2 DGPS, 5 RTK float, 4 RTK fixed) and the
  /// corrections' age in seconds.
  func quality(at now: ContinuousClock.Instant) -> (digit: Int, age: Double?) {
    if let radio {
      let corrected = radio.duration(to: now)
      return (corrected >= Self.fixedAfter ? 4 : corrected >= Self.floatAfter ? 5 : 2, 1)
    }
    guard let since = correctedSince, let last = lastCorrection, last.duration(to: now) <= Self.ageLimit else { return (1, nil) }
    let (seconds, attoseconds) = last.duration(to: now).components
    let age = Double(seconds) + Double(attoseconds) / 1e18
    let corrected = since.duration(to: now)
    return (corrected >= Self.fixedAfter ? 4 : corrected >= Self.floatAfter ? 5 : 2, age)
  }

  /// How much larger than RTK fixed (centimetres) the error estimates are at each GGA quality:
  /// a plain GPS fix is good to a metre or two, DGPS to half a metre, RTK float to decimetres.
  static let errorScale: [Int: Double] = [1: 100, 2: 30, 5: 10, 4: 1]
  /// RMC's mode at each GGA quality: autonomous, differential, float, RTK.
  static let modes: [Int: String] = [1: "A", 2: "D", 5: "F", 4: "R"]

  /// The epoch as the corrections make it: GGA's quality, age and station, GST's error
  /// estimates and RMC's mode (a rover without corrections claims no centimetres).
  public func filter(_ epoch: [UInt8]) -> [UInt8] {
    let (digit, age) = quality(at: now())
    var output: [UInt8] = []
    for line in epoch.split(separator: 0x0A, omittingEmptySubsequences: true) {
      let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: "\r")
      let type = text.dropFirst(3).prefix(3)
      guard ["GGA", "GST", "RMC"].contains(type), let star = text.lastIndex(of: "*") else {
        output += line + [0x0A]
        continue
      }
      var fields = text[text.index(after: text.startIndex)..<star].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      switch type {
      case "GGA" where fields.count >= 15 && fields[6] != "0":
        fields[6] = String(digit)
        fields[13] = age.map { String((($0 * 10).rounded() / 10)) } ?? ""
        fields[14] = age == nil ? "" : String(format4(stationID ?? 0))
      case "GST" where fields.count >= 9:
        let scale = Self.errorScale[digit] ?? 1
        for index in [2, 3, 4, 6, 7, 8] {
          guard let value = Double(fields[index]) else { continue }
          fields[index] = String((value * scale * 1000).rounded() / 1000)
        }
      case "RMC" where fields.count >= 13:
        fields[12] = Self.modes[digit] ?? fields[12]
      default:
        output += line + [0x0A]
        continue
      }
      let body = fields.joined(separator: ",")
      let checksum = body.utf8.reduce(UInt8(0), ^)
      let hex = Array("0123456789ABCDEF")
      output += Array("$\(body)*\(hex[Int(checksum >> 4)])\(hex[Int(checksum & 15)])\r\n".utf8)
    }
    return output
  }

  private func format4(_ value: Int) -> String {
    let text = String(value % 10_000)
    return String(repeating: "0", count: 4 - text.count) + text
  }

  public mutating func respond(to frame: UBXFrame) -> [UInt8] { [] }
  public mutating func respond(to sentence: ProprietarySentence) -> [UInt8] { [] }
}

extension String {
  fileprivate func trimmingCharacters(in set: String) -> String {
    let characters = Set(set)
    return String(drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
  }
}
