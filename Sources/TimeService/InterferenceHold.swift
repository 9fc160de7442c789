import Framing
import NMEA

/// Why a receiver's time is not fed to the clock while its signals are in doubt: what the
/// receiver itself says (``SignalIntegrity``), and the message that said it.
public enum Interference: Hashable, Sendable {
  /// The receiver's spoofing detector says its signals are spoofed (indicated or affirmed).
  case spoofing(SpoofingState, SignalIntegrity.Source?)
  /// The receiver's jamming monitor says jamming is critical: its fix may be lost or wrong.
  case jamming(SignalIntegrity.Source?)
  /// The antenna is short-circuited: no sky can reach the receiver.
  case antennaShort(SignalIntegrity.Source?)
  /// The antenna is reported open and the fix has degraded (lost its position, or fallen to
  /// fewer than four satellites). A board with a passive antenna reports "open" for ever with
  /// a good fix, so "open" alone holds nothing.
  case antennaOpen(SignalIntegrity.Source?)

  var source: SignalIntegrity.Source? {
    switch self {
    case .spoofing(_, let source), .jamming(let source), .antennaShort(let source), .antennaOpen(let source): source
    }
  }
}

/// Holds a receiver's time back from the clock while the receiver says its signals are
/// spoofed, critically jammed or its antenna is short (or open while the fix degrades), and
/// lets it through again once they have been clean for ``settlingTime``: a pure function of
/// the integrity changes and fixes in order, like ``TimeSampler``, so every rule is tested
/// without a receiver.
///
/// A receiver says such a change before the epoch it concerns (gpsbridge's pipeline releases
/// it just before the first fix made after it), so the fix of that epoch is already held: a
/// spoofed epoch's time never reaches chrony or the shared memory. Settling counts by the
/// machine's raw clock (each fix's ``Fix/arrivalUptime``), not the receiver's time, which is
/// what is in doubt.
package struct InterferenceHold: Sendable {
  /// How long the signals must have been clean, by the raw clock, before a held receiver's
  /// time is fed again: a spoofer switched off and on, or a jammer sweeping past, must not
  /// let a few seconds of doubtful time through between two alarms. A minute is about what a
  /// receiver takes to reacquire every satellite after real interference.
  package static let settlingTime: Duration = .seconds(60)

  /// Why the receiver is held now, if it is.
  package private(set) var holding: Interference?
  private var integrity = SignalIntegrity()
  /// When the signals were first seen clean again while held (raw clock).
  private var cleanSince: Duration?
  private let settling: Duration

  /// A hold that lets the time through again after `settlingTime` of clean signals.
  package init(settlingTime: Duration = Self.settlingTime) {
    settling = settlingTime
  }

  /// Whether the receiver's samples may be fed now.
  package var feeds: Bool { holding == nil }

  /// Takes what the receiver now says of its signals; the notice when it stops the feeding.
  /// An open antenna is judged with the next fix.
  package mutating func take(_ integrity: SignalIntegrity) -> TimeNotice? {
    self.integrity = integrity
    guard let reason = Self.interference(integrity, fixDegraded: false) else { return nil }
    return hold(for: reason)
  }

  /// Takes the receiver's next fix; the notice when it stops or resumes the feeding.
  package mutating func take(_ fix: Fix) -> TimeNotice? {
    let degraded = !fix.hasPosition || (fix.satellitesUsed.map { $0 < 4 } ?? false)
    if let reason = Self.interference(integrity, fixDegraded: degraded) { return hold(for: reason) }
    guard holding != nil, let now = fix.arrivalUptime else { return nil }
    let since = cleanSince ?? now
    cleanSince = since
    guard now - since >= settling else { return nil }
    holding = nil
    cleanSince = nil
    return .resumed(.signalsClean)
  }

  private mutating func hold(for reason: Interference) -> TimeNotice? {
    cleanSince = nil
    // Said when it starts, and when the reason changes (jamming on top of an open antenna).
    guard holding != reason else { return nil }
    holding = reason
    return .interference(reason)
  }

  /// The worst thing `integrity` says, if it says any that holds the time back.
  static func interference(_ integrity: SignalIntegrity, fixDegraded: Bool) -> Interference? {
    guard integrity.isAlarming else {
      return integrity.antenna == .open && fixDegraded ? .antennaOpen(integrity.antennaSource) : nil
    }
    if integrity.spoofing == .indicated || integrity.spoofing == .affirmed {
      return .spoofing(integrity.spoofing, integrity.spoofingSource)
    }
    return integrity.antenna == .short ? .antennaShort(integrity.antennaSource) : .jamming(integrity.jammingSource)
  }
}
