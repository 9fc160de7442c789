/// A proprietary NMEA sentence written to or read from a receiver: `$PMTK220,200*2C` and the
/// like. Commands are made from typed values only, never from text a user typed, so no field
/// can carry a `*`, a `$` or a line end into the receiver.
public struct ProprietarySentence: Hashable, Sendable, CustomStringConvertible {
  /// The address, `PMTK220`, and the fields after it.
  public var address: String
  public var fields: [String]

  public init(_ address: String, _ fields: [String] = []) {
    self.address = address
    self.fields = fields
  }

  /// `$…*HH` and CR LF, the checksum the XOR of the bytes between `$` and `*`.
  public var bytes: [UInt8] {
    let body = Array(([address] + fields).joined(separator: ",").utf8)
    let checksum = body.reduce(0, ^)
    let hex = Array("0123456789ABCDEF".utf8)
    return [UInt8(ascii: "$")] + body + [UInt8(ascii: "*"), hex[Int(checksum >> 4)], hex[Int(checksum & 0xF)], 0x0D, 0x0A]
  }

  public var description: String { "$" + ([address] + fields).joined(separator: ",") }

  /// The sentence in `line` (`$…*HH`, with or without its line end) when it starts with `P`
  /// and its checksum is right; `nil` otherwise.
  public init?(line: some Collection<UInt8>) {
    var bytes = Array(line)
    while let last = bytes.last, last == 0x0D || last == 0x0A { bytes.removeLast() }
    guard bytes.count > 5, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "P"), bytes[bytes.count - 3] == UInt8(ascii: "*"),
      let high = Self.hexValue(bytes[bytes.count - 2]), let low = Self.hexValue(bytes[bytes.count - 1]),
      bytes[1..<(bytes.count - 3)].reduce(0, ^) == high << 4 | low
    else { return nil }
    let parts = bytes[1..<(bytes.count - 3)].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
    address = String(decoding: parts[0], as: UTF8.self)
    fields = parts.dropFirst().map { String(decoding: $0, as: UTF8.self) }
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    default: nil
    }
  }
}

/// MediaTek's `PMTK` commands and answers (MT3318, MT3329, MT3339, MT3333 chips).
package enum MTKSentence {
  /// The slots of `PMTK314` and `PMTK514`, in order: how often each sentence goes out, in fixes.
  package static let sentenceSlots = [
    "GLL", "RMC", "VTG", "GGA", "GSA", "GSV", "GRS", "GST", "", "", "", "", "", "MALM", "MEPH", "MDGP", "MDBG", "ZDA", "MCHN",
  ]

  /// `PMTK220`: a fix every `milliseconds` (100 to 10,000).
  package static func fixInterval(_ milliseconds: Int) -> ProprietarySentence { ProprietarySentence("PMTK220", ["\(milliseconds)"]) }
  /// `PMTK251`: the serial port's speed.
  package static func baudRate(_ rate: Int) -> ProprietarySentence { ProprietarySentence("PMTK251", ["\(rate)"]) }
  /// `PMTK314`: every slot of ``sentenceSlots``, in fixes (0 is never).
  package static func sentenceRates(_ rates: [Int]) -> ProprietarySentence {
    ProprietarySentence("PMTK314", (0..<sentenceSlots.count).map { "\($0 < rates.count ? rates[$0] : 0)" })
  }
  /// `PMTK353`: GPS, GLONASS, Galileo, Galileo full, BeiDou, each on or off.
  package static func systems(gps: Bool, glonass: Bool, galileo: Bool, beidou: Bool) -> ProprietarySentence {
    ProprietarySentence("PMTK353", [gps, glonass, galileo, false, beidou].map { $0 ? "1" : "0" })
  }
  package static let queryRelease = ProprietarySentence("PMTK605")
  package static let querySentenceRates = ProprietarySentence("PMTK414")
  package static let queryFixInterval = ProprietarySentence("PMTK400")

  /// `PMTK001`'s command and flag: 0 invalid, 1 unsupported, 2 valid but failed, 3 done.
  package static func acknowledgement(_ sentence: ProprietarySentence) -> (command: Int, flag: Int)? {
    guard sentence.address == "PMTK001", sentence.fields.count >= 2, let command = Int(sentence.fields[0]),
      let flag = Int(sentence.fields[1])
    else { return nil }
    return (command, flag)
  }

  /// `PMTK705`'s release and model (`AXN_3.8_3333_…`, `Quectel-L76`).
  package static func release(_ sentence: ProprietarySentence) -> (release: String, model: String)? {
    guard sentence.address == "PMTK705", sentence.fields.count >= 3 else { return nil }
    return (sentence.fields[0], sentence.fields[2])
  }

  /// `PMTK514`'s sentence rates, by slot.
  package static func sentenceRates(_ sentence: ProprietarySentence) -> [Int]? {
    guard sentence.address == "PMTK514", sentence.fields.count >= 18 else { return nil }
    let rates = sentence.fields.map { Int($0) }
    return rates.contains(nil) ? nil : rates.map { $0! }
  }

  /// `PMTK500`'s fix interval in milliseconds.
  package static func fixInterval(_ sentence: ProprietarySentence) -> Int? {
    guard sentence.address == "PMTK500", let first = sentence.fields.first else { return nil }
    return Int(first)
  }
}

/// SiRF's NMEA-mode commands. SiRF answers none of them: what they did shows in the output.
package enum SiRFSentence {
  /// `PSRF103`'s message numbers.
  package static let messageNumbers = ["GGA": 0, "GLL": 1, "GSA": 2, "GSV": 3, "RMC": 4, "VTG": 5, "ZDA": 8]

  /// `PSRF100`: NMEA at `rate` baud, 8 data bits, 1 stop bit, no parity.
  package static func serialPort(baudRate rate: Int) -> ProprietarySentence {
    ProprietarySentence("PSRF100", ["1", "\(rate)", "8", "1", "0"])
  }

  /// `PSRF103`: `sentence` every `seconds` (0 is never), checksummed.
  package static func sentenceRate(_ number: Int, seconds: Int) -> ProprietarySentence {
    ProprietarySentence("PSRF103", [number, 0, seconds, 1].map { $0 < 10 ? "0\($0)" : "\($0)" })
  }
}
