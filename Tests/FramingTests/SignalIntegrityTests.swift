import Framing
import Testing

/// One integrity state per receiver, from whichever of u-blox's messages it sends: the more
/// specific message wins once it has spoken, and a receiver is as bad as its worst RF block.
struct SignalIntegrityTests {
  /// `MON-HW` with the antenna, its power, the jamming state and indicator given.
  static func hardware(antenna: Int, power: Int, jamming: Int, indicator: Int) -> UBXFrame {
    var payload = [UInt8](repeating: 0, count: 60)
    (payload[20], payload[21], payload[22], payload[45]) = (UInt8(antenna), UInt8(power), UInt8(jamming << 2), UInt8(indicator))
    return UBXFrame(messageClass: 0x0A, id: 0x09, payload: payload)
  }

  /// `MON-RF` with one block per `(antenna, power, jamming, indicator)`.
  static func radio(_ blocks: [(antenna: Int, power: Int, jamming: Int, indicator: Int)]) -> UBXFrame {
    var payload: [UInt8] = [0, UInt8(blocks.count), 0, 0]
    for (index, block) in blocks.enumerated() {
      var bytes = [UInt8](repeating: 0, count: 24)
      (bytes[0], bytes[1], bytes[2], bytes[3], bytes[16]) =
        (UInt8(index), UInt8(block.jamming), UInt8(block.antenna), UInt8(block.power), UInt8(block.indicator))
      payload += bytes
    }
    return UBXFrame(messageClass: 0x0A, id: 0x38, payload: payload)
  }

  static func navigationStatus(spoofing: Int) -> UBXFrame {
    var payload = [UInt8](repeating: 0, count: 16)
    payload[7] = UInt8(spoofing << 3)
    return UBXFrame(messageClass: 0x01, id: 0x03, payload: payload)
  }

  static func signalSecurity(jamming: Int?, spoofing: Int?) -> UBXFrame {
    let jam = jamming.map { UInt8(1 | $0 << 1) } ?? 0
    let spoof = spoofing.map { UInt8(1 | $0 << 1) } ?? 0
    return UBXFrame(messageClass: 0x27, id: 0x09, payload: [1, 0, 0, 0, jam, 0, 0, 0, spoof, 0, 0, 0])
  }

  @Test func aReceiverThatSaysNothingIsUnknownThroughout() {
    var integrity = SignalIntegrity()
    let changed = integrity.take(UBXFrame(messageClass: 0x01, id: 0x07, payload: [UInt8](repeating: 0, count: 92)))
    #expect(!changed)
    #expect(integrity == SignalIntegrity())
    #expect(integrity.jamming == .unknown && integrity.spoofing == .unknown && integrity.antenna == .unknown)
    #expect(integrity.jammingIndicator == nil && integrity.jammingSource == nil)
  }

  @Test func theHardwareMonitorSaysTheAntennaAndJammingAndAChangeIsSaidOnce() {
    var integrity = SignalIntegrity()
    let first = integrity.take(Self.hardware(antenna: 4, power: 1, jamming: 1, indicator: 12))
    #expect(first)
    #expect(integrity.antenna == .open && integrity.antennaPower == .on && integrity.antennaSource == .hardwareMonitor)
    #expect(integrity.jamming == .ok && integrity.jammingIndicator == 12)
    let again = integrity.take(Self.hardware(antenna: 4, power: 1, jamming: 1, indicator: 12))
    #expect(!again, "the same again is no change")
    let changed = integrity.take(Self.hardware(antenna: 2, power: 1, jamming: 3, indicator: 200))
    #expect(changed)
    #expect(integrity.antenna == .ok && integrity.jamming == .critical && integrity.jammingIndicator == 200)
  }

  @Test func aReceiverIsAsBadAsItsWorstBlock() {
    var integrity = SignalIntegrity()
    _ = integrity.take(Self.radio([(antenna: 2, power: 1, jamming: 1, indicator: 10), (antenna: 3, power: 0, jamming: 2, indicator: 90)]))
    #expect(integrity.antenna == .short && integrity.antennaPower == .off && integrity.antennaSource == .radioMonitor)
    #expect(integrity.jamming == .warning && integrity.jammingIndicator == 90)
    _ = integrity.take(Self.radio([(antenna: 4, power: 1, jamming: 3, indicator: 5), (antenna: 2, power: 1, jamming: 1, indicator: 1)]))
    #expect(integrity.antenna == .open && integrity.jamming == .critical && integrity.jammingIndicator == 5)
  }

  /// A generation 9 receiver sends both monitors: MON-RF's word stands, MON-HW's does not
  /// take it back; SEC-SIG's stands over both, when its detector is on.
  @Test func theMoreSpecificMessageWinsOnceItHasSpoken() {
    var integrity = SignalIntegrity()
    _ = integrity.take(Self.radio([(antenna: 3, power: 1, jamming: 2, indicator: 80)]))
    _ = integrity.take(Self.hardware(antenna: 2, power: 1, jamming: 1, indicator: 0))
    #expect(integrity.antenna == .short && integrity.jamming == .warning && integrity.jammingIndicator == 80)
    _ = integrity.take(Self.signalSecurity(jamming: 3, spoofing: 2))
    #expect(integrity.jamming == .critical && integrity.jammingSource == .signalSecurity)
    #expect(integrity.spoofing == .indicated && integrity.spoofingSource == .signalSecurity)
    _ = integrity.take(Self.radio([(antenna: 2, power: 1, jamming: 1, indicator: 0)]))
    #expect(integrity.jamming == .critical, "MON-RF does not take back SEC-SIG's word")
    #expect(integrity.antenna == .ok && integrity.jammingIndicator == 0, "but it still says the antenna")
    _ = integrity.take(Self.navigationStatus(spoofing: 1))
    #expect(integrity.spoofing == .indicated, "NAV-STATUS does not take back SEC-SIG's word")
  }

  /// SEC-SIG's detector turned off gives the word back to MON-RF and NAV-STATUS.
  @Test func aDetectorTurnedOffGivesTheWordBack() {
    var integrity = SignalIntegrity()
    _ = integrity.take(Self.signalSecurity(jamming: 3, spoofing: 3))
    _ = integrity.take(Self.radio([(antenna: 2, power: 1, jamming: 1, indicator: 0)]))
    #expect(integrity.jamming == .critical && integrity.spoofing == .affirmed)
    _ = integrity.take(Self.signalSecurity(jamming: nil, spoofing: nil))
    #expect(integrity.jamming == .unknown && integrity.jammingSource == nil && integrity.spoofing == .unknown)
    _ = integrity.take(Self.radio([(antenna: 2, power: 1, jamming: 1, indicator: 0)]))
    _ = integrity.take(Self.navigationStatus(spoofing: 1))
    #expect(integrity.jamming == .ok && integrity.jammingSource == .radioMonitor)
    #expect(integrity.spoofing == .none && integrity.spoofingSource == .navigationStatus)
  }

  /// u-blox 6's MON-HW is 68 bytes, its jamming indicator at 53 (eight more pin mappings).
  @Test func aUBlox6HardwareMonitorIsReadAtItsOwnOffsets() throws {
    var payload = [UInt8](repeating: 0, count: 68)
    (payload[20], payload[21], payload[45], payload[53]) = (3, 1, 99, 42)
    let hardware = try #require(HardwareStatus(UBXFrame(messageClass: 0x0A, id: 0x09, payload: payload)))
    #expect(hardware.antenna == .short && hardware.antennaPower == .on && hardware.jammingIndicator == 42)
  }

  @Test func aDetectorThatIsOffSaysNothing() {
    var integrity = SignalIntegrity()
    _ = integrity.take(Self.navigationStatus(spoofing: 3))
    #expect(integrity.spoofing == .affirmed && integrity.spoofingSource == .navigationStatus)
    let changed = integrity.take(Self.signalSecurity(jamming: nil, spoofing: nil))
    #expect(!changed)
    #expect(integrity.spoofing == .affirmed && integrity.jamming == .unknown)
  }

  /// gpsbridge's own evidence sets spoofing only while the receiver says nothing of it, and
  /// goes when the evidence does; the receiver's word, once said, is believed over it.
  @Test func gpsbridgesEvidenceNeverOverridesTheReceiversWord() {
    var integrity = SignalIntegrity()
    var changed = integrity.suspectSpoofing(.motion)
    #expect(changed)
    #expect(integrity.spoofing == .indicated && integrity.spoofingSource == .motion)
    changed = integrity.suspectSpoofing(.motion)
    #expect(!changed, "no change")
    changed = integrity.suspectSpoofing(nil)
    #expect(changed)
    #expect(integrity.spoofing == .unknown && integrity.spoofingSource == nil)
    _ = integrity.suspectSpoofing(.alikeSignals)
    // The receiver says: its word wins, and stays.
    _ = integrity.take(Self.navigationStatus(spoofing: 1))
    #expect(integrity.spoofing == .none && integrity.spoofingSource == .navigationStatus)
    changed = integrity.suspectSpoofing(.motion)
    #expect(!changed && integrity.spoofing == .none)
    changed = integrity.suspectSpoofing(nil)
    #expect(!changed && integrity.spoofingSource == .navigationStatus)
  }
}
