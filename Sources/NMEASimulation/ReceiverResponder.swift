import Framing

/// A simulated receiver's configuration: what it answers to the commands written to it, and
/// how its settings shape what it sends. ``LiveReceiver`` plays one on a pty.
public protocol ReceiverResponder: Sendable {
  /// Epochs a second it sends now.
  var rate: Double { get }
  /// Whether it sends UBX navigation (NAV-PVT, NAV-DOP, NAV-EOE) now.
  var sendsUBX: Bool { get }
  /// The line speed it speaks at, once a baud rate has been set (`nil` before: it speaks at
  /// whatever speed the host opened it with, as a receiver found by autobaud does).
  var lineSpeed: Int? { get }
  /// The speed the host's end of the line is set to, as the live receiver last saw it: the
  /// speed an ignored baud change keeps.
  var hostSpeed: Int? { get set }
  /// Keeps the lines of `epoch` (NMEA text, CRLF ends) that it sends now.
  func filter(_ epoch: [UInt8]) -> [UInt8]
  /// The bytes it answers `frame` with, a UBX command written to it.
  mutating func respond(to frame: UBXFrame) -> [UInt8]
  /// The bytes it answers `sentence` with, a proprietary NMEA command written to it.
  mutating func respond(to sentence: ProprietarySentence) -> [UInt8]
  /// Takes an RTCM 3 correction written to it, at `now` (by its own clock).
  mutating func take(_ correction: RTCM3Frame, at now: ContinuousClock.Instant)
  /// The messages saying what its monitors see that it sends now (each epoch).
  var integrityMessages: Set<IntegrityMessage> { get }
}

extension ReceiverResponder {
  /// Receivers that are not u-blox say nothing of their signals.
  public var integrityMessages: Set<IntegrityMessage> { [] }

  /// Receivers without RTK throw corrections away.
  public mutating func take(_ correction: RTCM3Frame, at now: ContinuousClock.Instant) {}
}

/// Ways a simulated receiver misbehaves at one step of a transaction, for the tests that check
/// a change is rolled back.
public enum ResponderFault: String, Hashable, Sendable, CaseIterable {
  /// Answers nothing at all (not this kind, or a dead link).
  case silent
  /// Refuses every change in RAM.
  case refusesChanges
  /// Acknowledges a change, then stops answering: a receiver gone silent mid-transaction.
  case silentAfterChange
  /// Acknowledges a change and does not make it (read back shows the old values).
  case ignoresChanges
  /// Makes the change and reads it back, but its output goes on as before.
  case outputUnchanged
  /// Refuses to save (battery-backed RAM and flash).
  case refusesSaving
  /// Acknowledges a new baud rate and keeps speaking at the old one: the host that follows
  /// the change hears nothing it can read, and must go back.
  case ignoresBaudChange
  /// Says it is another generation than it is (an M8 claiming protocol 27): its answers then
  /// do not fit what it claimed.
  case claimsAnotherGeneration
}

/// Keeps the lines of an epoch that a receiver's settings let out: the standard sentences it
/// sends, and of GSV and GSA only those of the satellite systems it tracks.
enum EpochFilter {
  /// GSV's (and GSA's) talkers, and NMEA 4.10's GSA system IDs, by system.
  static let talkers = ["GP": "gps", "GL": "glonass", "GA": "galileo", "GB": "beidou", "BD": "beidou", "GQ": "qzss"]
  static let systemIDs = ["1": "gps", "2": "glonass", "3": "galileo", "4": "beidou", "5": "qzss"]
  static let standard: Set<String> = ["GGA", "GLL", "GSA", "GSV", "RMC", "VTG", "ZDA"]

  static func keep(_ epoch: [UInt8], sentences: Set<String>, systems: Set<String>) -> [UInt8] {
    var kept: [UInt8] = []
    for line in epoch.split(separator: 0x0A, omittingEmptySubsequences: true) {
      let bytes = Array(line)
      // `$GNGGA,…`: the type follows the two-letter talker; other sentences (GST, TXT) stay.
      let talker = bytes.count > 6 ? String(decoding: bytes[1..<3], as: UTF8.self) : ""
      let type = bytes.count > 6 ? String(decoding: bytes[3..<6], as: UTF8.self) : ""
      guard !standard.contains(type) || sentences.contains(type) else { continue }
      if type == "GSV" || type == "GSA", let system = system(talker, type, bytes), !systems.contains(system) { continue }
      kept += bytes + [0x0A]
    }
    return kept
  }

  private static func system(_ talker: String, _ type: String, _ bytes: [UInt8]) -> String? {
    if let system = talkers[talker] { return system }
    guard type == "GSA", talker == "GN" else { return nil }
    // NMEA 4.10's GSA ends with the system's ID.
    let body = bytes.prefix { $0 != UInt8(ascii: "*") }
    guard let comma = body.lastIndex(of: UInt8(ascii: ",")) else { return nil }
    return systemIDs[String(decoding: body[(comma + 1)...], as: UTF8.self)]
  }
}
