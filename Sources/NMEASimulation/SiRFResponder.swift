import Framing

/// A simulated SiRF in NMEA mode: `PSRF100` sets its port, `PSRF103` each sentence's interval,
/// and it answers neither (as the real one does not); any other sentence it is sent it echoes
/// back, as SiRFs do. Its settings show only in what it sends.
public struct SiRFResponder: ReceiverResponder {
  public var fault: ResponderFault?
  /// Seconds between each sentence, by type (0 is never).
  public private(set) var intervals: [String: Int] = ["GGA": 1, "GLL": 0, "GSA": 1, "GSV": 1, "RMC": 1, "VTG": 0, "ZDA": 0]
  public let initialIntervals: [String: Int] = ["GGA": 1, "GLL": 0, "GSA": 1, "GSV": 1, "RMC": 1, "VTG": 0, "ZDA": 0]
  public private(set) var lineSpeed: Int?
  public var hostSpeed: Int?
  private var frozen: [String: Int]?
  /// Whether it stopped talking (``ResponderFault/silentAfterChange``).
  public private(set) var fallenSilent = false

  static let messages = [0: "GGA", 1: "GLL", 2: "GSA", 3: "GSV", 4: "RMC", 5: "VTG", 8: "ZDA"]

  public init(fault: ResponderFault? = nil) {
    self.fault = fault
  }

  public var rate: Double { 1 }
  public var sendsUBX: Bool { false }
  public var sentences: Set<String> { Set((frozen ?? intervals).filter { $0.value > 0 }.keys) }

  public func filter(_ epoch: [UInt8]) -> [UInt8] {
    fallenSilent ? [] : EpochFilter.keep(epoch, sentences: sentences, systems: ["gps", "sbas"])
  }

  public mutating func respond(to frame: UBXFrame) -> [UInt8] { [] }

  public mutating func respond(to sentence: ProprietarySentence) -> [UInt8] {
    switch sentence.address {
    case "PSRF100":
      let numbers = sentence.fields.map { Int($0) }
      // NMEA (1), 8 data bits, 1 stop bit, no parity, at a rate it has.
      guard numbers.count == 5, numbers[0] == 1, numbers[2] == 8, numbers[3] == 1, numbers[4] == 0, let baud = numbers[1],
        [4800, 9600, 19_200, 38_400, 57_600, 115_200].contains(baud), fault != .ignoresChanges
      else { return [] }
      lineSpeed = fault == .ignoresBaudChange ? (lineSpeed ?? hostSpeed) : baud
    case "PSRF103":
      let numbers = sentence.fields.map { Int($0) }
      guard numbers.count == 4, let number = numbers[0], let type = Self.messages[number], numbers[1] == 0, let seconds = numbers[2],
        (0...255).contains(seconds)
      else { return [] }
      if fault == .ignoresChanges { return [] }
      if fault == .outputUnchanged, frozen == nil { frozen = intervals }
      intervals[type] = seconds
      if fault == .silentAfterChange { fallenSilent = true }
    default:
      return sentence.bytes
    }
    return []
  }
}
