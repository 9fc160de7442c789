import Framing
import NMEA
import NMEASimulation
import Testing

/// The simulator under attack does what a jammer or a spoofer does to a receiver, and a u-blox
/// says so in its own messages, at the strengths ``Attack`` states.
struct AttackTests {
  static let route = Route.demoDrive.lasting(60)

  /// Each epoch's fix and, for a u-blox, what its MON-HW and NAV-STATUS said before it.
  static func played(_ attack: Attack?, profile: ReceiverProfile = .ublox) -> [(fix: Fix?, integrity: SignalIntegrity)] {
    var integrity = SignalIntegrity()
    return Simulation(route: route, profile: profile, attack: attack).epochs().map { epoch in
      // Split as a receiver's stream is: only whole frames with good checksums, no text.
      var splitter = StreamSplitter()
      epoch.integrity.withUnsafeBytes { bytes in
        splitter.split(bytes, text: { #expect($0.isEmpty) }) { frame in
          if case .ubx(let ubx) = frame { _ = integrity.take(ubx) }
        }
      }
      var decoder = FixDecoder()
      decoder.append(epoch.bytes)
      decoder.finish()
      return (decoder.next(), integrity)
    }
  }

  @Test func withoutAnAttackNothingChanges() {
    let plain = Simulation(route: Self.route, profile: .ublox)
    #expect(plain.capture() == Simulation(route: Self.route, profile: .ublox, attack: nil).capture())
    #expect(plain.epochs().allSatisfy { $0.integrity.isEmpty })
  }

  @Test func aSpoofedPositionWalksAwayAndItsTimeSlewsAsAUBloxSays() throws {
    let clean = Self.played(nil)
    let spoofed = Self.played(Attack(.spoofing, at: 20))
    for second in [0, 19] {
      #expect(spoofed[second].fix == clean[second].fix)
      #expect(spoofed[second].integrity.spoofing == .none)
    }
    for second in [20, 25, 29] {
      let elapsed = Double(second - 20)
      let (a, b) = (try #require(clean[second].fix), try #require(spoofed[second].fix))
      let north = (try #require(b.latitude) - (try #require(a.latitude))) * .pi / 180 * 6_371_008.8
      #expect(abs(north - 5 * elapsed) < 0.2, "\(second): \(north) m north")
      let ahead = Double(b.time.nanosecondsSinceMidnight - a.time.nanosecondsSinceMidnight) / 1e9
      #expect(abs(ahead - 0.010 * elapsed) < 0.0051, "\(second): \(ahead) s ahead")
      #expect(spoofed[second].integrity.spoofing == .indicated && spoofed[second].integrity.spoofingSource == .navigationStatus)
    }
    #expect(spoofed[30].integrity.spoofing == .affirmed)
  }

  @Test func jammingFadesTheSignalsUntilTheFixIsLostAsAUBloxSays() throws {
    let clean = Self.played(nil)
    let jammed = Self.played(Attack(.jamming, at: 20))
    #expect(jammed[19].fix == clean[19].fix && jammed[19].integrity.jamming == .ok)
    #expect(jammed[19].integrity.jammingIndicator == 10)
    // Two dB-Hz a second off every tracked satellite.
    let before = try #require(clean[24].fix).satellites.compactMap(\.snr)
    let after = try #require(jammed[24].fix).satellites.compactMap(\.snr)
    #expect(after.count <= before.count && after.allSatisfy { $0 >= 25 })
    #expect(jammed[22].integrity.jamming == .warning && jammed[22].integrity.jammingIndicator == 60)
    #expect(jammed[25].integrity.jamming == .critical && jammed[25].integrity.jammingSource == .hardwareMonitor)
    #expect(jammed[59].integrity.jammingIndicator == 255)
    // Thirty dB-Hz lost: no four satellites left, no fix.
    #expect(jammed[40].fix?.hasPosition == false, "\(String(describing: jammed[40].fix))")
  }

  /// A u-blox told to send UBX says the same spoofed position and time in NAV-PVT as in its
  /// sentences.
  @Test func itsUBXNavigationIsSpoofedAlike() throws {
    let simulation = Simulation(route: Self.route, profile: .ublox, attack: Attack(.spoofing, at: 20))
    let epoch = try #require(Array(simulation.epochs().prefix(26)).last)
    var decoder = FixDecoder()
    decoder.append(epoch.bytes)
    decoder.finish()
    let next = decoder.next()
    let nmea = try #require(next)
    var splitter = StreamSplitter()
    var pvt: UBXFrame?
    simulation.ubx(epoch).withUnsafeBytes { bytes in
      splitter.split(bytes, text: { _ in }) { frame in
        if case .ubx(let ubx) = frame, ubx.messageClass == 0x01, ubx.id == 0x07 { pvt = ubx }
      }
    }
    let payload = try #require(pvt?.payload)
    let latitude =
      Double(Int32(bitPattern: UInt32(payload[28]) | UInt32(payload[29]) << 8 | UInt32(payload[30]) << 16 | UInt32(payload[31]) << 24))
      / 1e7
    #expect(abs(latitude - (try #require(nmea.latitude))) < 2e-6, "NAV-PVT \(latitude), NMEA \(String(describing: nmea.latitude))")
  }

  @Test func onlyAUBloxSaysSoInUBX() {
    #expect(Simulation(route: Self.route, profile: .sirf, attack: Attack(.jamming, at: 1)).epochs().allSatisfy { $0.integrity.isEmpty })
  }
}
