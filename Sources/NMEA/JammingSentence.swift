/// The proprietary NMEA sentences in which receivers say what their jamming detector sees,
/// each with one state: 1 healthy, 2 warning, 3 critical (0 while it has not judged).
///
/// - MediaTek's `$PMTKSPF,<state>` (Quectel's MC60, L76 and others, once jamming detection
///   is on);
/// - Quectel's `$PQTMJAMMINGSTATUS,<version>,<state>` (LC29H, LG290P and others; version 1);
/// - Airoha's `$PAIRSPF,<state>` (LC76G and other receivers on Airoha chips, turned on with
///   `$PAIR391`).
///
/// Each is sent after the second's NMEA, so it holds for that epoch.
package enum JammingSentence: Hashable, Sendable {
  case mediatek, quectel, airoha

  /// The maker whose jamming sentence `sentence` is, if it is one.
  init?(_ sentence: SentenceView) {
    switch sentence.type {
    case Self.mediatekType: self = .mediatek
    case Self.airohaType: self = .airoha
    // Types keep their first eight letters: the rest is told by the address's length.
    case Self.quectelType where sentence.addressLength == 17: self = .quectel
    default: return nil
    }
  }

  static let mediatekType = SentenceType("MTKSPF")
  static let airohaType = SentenceType("AIRSPF")
  static let quectelType = SentenceType("QTMJAMMINGSTATUS")
}
