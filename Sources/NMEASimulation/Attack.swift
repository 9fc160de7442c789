import Framing
import NMEA

/// Interference a simulated receiver is put under from a moment of its route on: what a
/// jammer or a spoofer does to what the receiver sends, so that everything gpsbridge does
/// about interference can be tested and shown without a transmitter.
///
/// - **Jamming**: every signal loses 2 dB-Hz a second from the start, down to 30 dB-Hz lost;
///   a satellite under 25 dB-Hz is no longer tracked, and with fewer than four the fix is
///   lost. A u-blox says so in `MON-HW`: its jamming indicator rises by 25 a second from 10
///   (to 255), its jamming state is *warning* from the start and *critical* 5 s after; a
///   MediaTek says the same states in `$PMTKSPF` after each second's epoch.
/// - **Spoofing**: the position walks away north at 5 m/s, beyond what the route does, the
///   receiver's time slews 10 ms a second ahead, and every satellite comes in at 45 or 46
///   dB-Hz (one transmitter, one power): a spoofer dragging its victim. A u-blox says so in
///   `NAV-STATUS`: spoofing *indicated* from the start, *affirmed* 10 s after.
///
/// Before the start a u-blox under a planned attack says that all is well in the same
/// messages, once a second, as a receiver whose integrity messages are turned on does.
public struct Attack: Hashable, Sendable {
  /// What the attacker does.
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    /// Drowns the signals: they fade until the fix is lost.
    case jamming
    /// Sends false signals: the position and time are dragged away.
    case spoofing
  }

  public var kind: Kind
  /// Seconds from the start of the route.
  public var start: Double

  /// An attack of `kind` from `start` seconds into the route on.
  public init(_ kind: Kind, at start: Double) {
    self.kind = kind
    self.start = start
  }

  /// How fast a spoofed position walks away, metres a second.
  public static let spoofedDrift = 5.0
  /// How fast a spoofed time slews ahead, seconds a second.
  public static let spoofedSlew = 0.010
  /// How fast jamming takes signal strength away, dB-Hz a second, and at most how much.
  public static let jammedLoss = (perSecond: 2.0, most: 30.0)

  /// Seconds under attack at `elapsed` seconds into the route; `nil` before it starts.
  func attacked(at elapsed: Double) -> Double? {
    elapsed >= start ? elapsed - start : nil
  }

  /// dB-Hz every signal has lost at `elapsed`.
  func signalLoss(at elapsed: Double) -> Int {
    guard kind == .jamming, let seconds = attacked(at: elapsed) else { return 0 }
    return Int(min(Self.jammedLoss.most, seconds * Self.jammedLoss.perSecond))
  }

  /// The signal strength every tracked satellite has at `elapsed`, dB-Hz (one more for odd
  /// satellite numbers); `nil` while not spoofed.
  func spoofedStrength(at elapsed: Double) -> Int? {
    kind == .spoofing && attacked(at: elapsed) != nil ? 45 : nil
  }

  /// The jamming state a receiver's monitor says at `elapsed`: 1 none, 2 warning (from the
  /// start), 3 critical (5 s after).
  func jammingState(at elapsed: Double) -> Int {
    guard kind == .jamming, let seconds = attacked(at: elapsed) else { return 1 }
    return seconds >= 5 ? 3 : 2
  }

  /// How far north the spoofed position is, metres, and how far ahead its time, nanoseconds.
  func spoofedOffset(at elapsed: Double) -> (north: Double, ahead: Int64) {
    guard kind == .spoofing, let seconds = attacked(at: elapsed) else { return (0, 0) }
    return (seconds * Self.spoofedDrift, Int64((seconds * Self.spoofedSlew * 1e9).rounded()))
  }
}

/// A u-blox message that says what its monitors see, as the simulator sends it: under a planned
/// ``Attack``, or because the receiver was told to (`gpsbridge configure --integrity on`).
public enum IntegrityMessage: Hashable, Sendable, CaseIterable {
  case hardwareMonitor
  case radioMonitor
  case navigationStatus
  case signalSecurity

  /// The frames of `messages` for the epoch at `time`, `elapsed` seconds into the route, under
  /// `attack` (none: all is well), in a fixed order.
  static func frames(_ messages: Set<IntegrityMessage>, attack: Attack?, at elapsed: Double, time: UTCTimestamp, hasFix: Bool) -> [UInt8] {
    let seconds = attack?.attacked(at: elapsed)
    let jamming = attack?.jammingState(at: elapsed) ?? 1
    var indicator = 10
    if attack?.kind == .jamming, let seconds { indicator = min(255, 10 + Int(seconds * 25)) }
    var spoofing = 1
    if attack?.kind == .spoofing, let seconds { spoofing = seconds >= 10 ? 3 : 2 }
    var bytes: [UInt8] = []
    if messages.contains(.hardwareMonitor) {
      var hardware = [UInt8](repeating: 0, count: 60)
      // aStatus 2 (OK), aPower 1 (on), flags: rtcCalib, jammingState in bits 2–3.
      (hardware[20], hardware[21], hardware[22], hardware[45]) = (2, 1, UInt8(0x01 | jamming << 2), UInt8(indicator))
      bytes += UBXFrame(messageClass: 0x0A, id: 0x09, payload: hardware).bytes
    }
    if messages.contains(.radioMonitor) {
      // Version 0, one block: its jamming state, antenna OK and powered, the indicator.
      var radio = [UInt8](repeating: 0, count: 4 + 24)
      radio[1] = 1
      (radio[5], radio[6], radio[7], radio[20]) = (UInt8(jamming), 2, 1, UInt8(indicator))
      bytes += UBXFrame(messageClass: 0x0A, id: 0x38, payload: radio).bytes
    }
    if messages.contains(.navigationStatus) {
      var status = [UInt8](repeating: 0, count: 16)
      let weekMilliseconds: Int64 = 7 * 86_400_000
      let timeOfWeek = UInt32(truncatingIfNeeded: ((time.nanosecondsSince1970 / 1_000_000) + 4 * 86_400_000) % weekMilliseconds)
      withUnsafeBytes(of: timeOfWeek.littleEndian) { status.replaceSubrange(0..<4, with: $0) }
      // gpsFix 3 (3D) and gpsFixOk, or none; flags2's spoofDetState in bits 3–4.
      (status[4], status[5]) = hasFix ? (3, 0x01) : (0, 0)
      status[7] = UInt8(spoofing << 3)
      bytes += UBXFrame(messageClass: 0x01, id: 0x03, payload: status).bytes
    }
    if messages.contains(.signalSecurity) {
      // Version 1: jamDetEnabled and jammingState, spfDetEnabled and spoofingState.
      var security = [UInt8](repeating: 0, count: 12)
      security[0] = 1
      security[4] = UInt8(0x01 | jamming << 1)
      security[8] = UInt8(0x01 | spoofing << 1)
      bytes += UBXFrame(messageClass: 0x27, id: 0x09, payload: security).bytes
    }
    return bytes
  }
}
