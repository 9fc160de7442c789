import Framing

/// A simulated MediaTek receiver (an MT3333 with GPS and GLONASS): `PMTK` commands answered by
/// `PMTK001` with flag 3 when done, 2 when valid but not done, 1 for a command it does not
/// have; `PMTK605`, `PMTK400` and `PMTK414` answered with `PMTK705`, `PMTK500` and `PMTK514`.
public struct MTKResponder: ReceiverResponder {
  public var fault: ResponderFault?
  /// Milliseconds between fixes.
  public private(set) var interval: Int
  /// `PMTK314`'s slots: how often each sentence goes out, in fixes.
  public private(set) var sentenceRates: [Int]
  /// GPS, GLONASS, Galileo, Galileo full, BeiDou.
  public private(set) var searchMode: [Bool] = [true, true, false, false, false]
  public private(set) var lineSpeed: Int?
  public var hostSpeed: Int?
  /// What it did at start.
  public let initialInterval: Int
  public let initialSentenceRates: [Int]
  public let initialSearchMode: [Bool] = [true, true, false, false, false]
  private var frozen: (Int, [Int], [Bool])?
  private var changed = false

  static let slots = [
    "GLL", "RMC", "VTG", "GGA", "GSA", "GSV", "GRS", "GST", "", "", "", "", "", "MALM", "MEPH", "MDGP", "MDBG", "ZDA", "MCHN",
  ]
  static let defaultRates = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]

  /// Defaults: 1 Hz (or `rate`), GLL RMC VTG GGA GSA GSV every fix, GPS and GLONASS.
  public init(rate: Int = 1, fault: ResponderFault? = nil) {
    self.fault = fault
    interval = 1000 / max(rate, 1)
    sentenceRates = Self.defaultRates
    initialInterval = interval
    initialSentenceRates = sentenceRates
  }

  private var output: (interval: Int, rates: [Int], mode: [Bool]) { frozen ?? (interval, sentenceRates, searchMode) }

  public var rate: Double { 1000 / Double(max(output.interval, 1)) }
  public var sendsUBX: Bool { false }
  public var sentences: Set<String> {
    Set(zip(Self.slots, output.rates).filter { !$0.0.isEmpty && $0.1 > 0 }.map(\.0))
  }
  public var systems: Set<String> {
    Set(zip(["gps", "glonass", "galileo", "galileo", "beidou"], output.mode).filter(\.1).map(\.0))
  }

  public func filter(_ epoch: [UInt8]) -> [UInt8] { EpochFilter.keep(epoch, sentences: sentences, systems: systems) }

  public mutating func respond(to frame: UBXFrame) -> [UInt8] { [] }

  public mutating func respond(to sentence: ProprietarySentence) -> [UInt8] {
    if fault == .silent || (fault == .silentAfterChange && changed) { return [] }
    guard sentence.address.hasPrefix("PMTK"), let command = Int(sentence.address.dropFirst(4)) else { return [] }
    func acknowledge(_ flag: Int) -> [UInt8] { ProprietarySentence("PMTK001", ["\(command)", "\(flag)"]).bytes }
    let numbers = sentence.fields.map { Int($0) }
    switch command {
    case 605: return ProprietarySentence("PMTK705", ["AXN_3.8_3333_SIM", "0001", "MT3333-SIM", ""]).bytes
    case 400: return ProprietarySentence("PMTK500", ["\(interval)", "0", "0", "0.0", "0.0"]).bytes
    case 414: return ProprietarySentence("PMTK514", sentenceRates.map { "\($0)" }).bytes
    case 220:
      guard numbers.count == 1, let milliseconds = numbers[0], (100...10_000).contains(milliseconds) else { return acknowledge(2) }
      return change(command) { $0.interval = milliseconds }
    case 314:
      if sentence.fields == ["-1"] { return change(command) { $0.sentenceRates = Self.defaultRates } }
      guard numbers.count >= 18, numbers.allSatisfy({ $0.map { (0...5).contains($0) } ?? false }) else { return acknowledge(2) }
      return change(command) {
        $0.sentenceRates = Array(numbers.map { $0! }.prefix(19)) + Array(repeating: 0, count: max(0, 19 - numbers.count))
      }
    case 353:
      guard numbers.count == 5, numbers.allSatisfy({ $0 == 0 || $0 == 1 }), numbers[0] == 1 else { return acknowledge(2) }
      return change(command) { $0.searchMode = numbers.map { $0 == 1 } }
    case 251:
      guard numbers.count == 1, let baud = numbers[0], [0, 4800, 9600, 14_400, 19_200, 38_400, 57_600, 115_200].contains(baud) else {
        return acknowledge(2)
      }
      return change(command) { responder in
        if responder.fault == .ignoresBaudChange {
          responder.lineSpeed = responder.lineSpeed ?? responder.hostSpeed
        } else {
          responder.lineSpeed = baud == 0 ? 9600 : baud
        }
      }
    default: return acknowledge(1)
    }
  }

  /// A change, as the fault lets it be, acknowledged.
  private mutating func change(_ command: Int, _ apply: (inout MTKResponder) -> Void) -> [UInt8] {
    if fault == .refusesChanges { return ProprietarySentence("PMTK001", ["\(command)", "2"]).bytes }
    if fault != .ignoresChanges {
      if fault == .outputUnchanged, frozen == nil { frozen = (interval, sentenceRates, searchMode) }
      apply(&self)
    }
    changed = true
    return ProprietarySentence("PMTK001", ["\(command)", "3"]).bytes
  }
}
