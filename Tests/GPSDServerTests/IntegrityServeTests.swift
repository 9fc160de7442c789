import Foundation
import Framing
import GPSDServer
import NMEASimulation
import TestHelpers
import Testing

/// What a u-blox says of its antenna and of jamming (`MON-HW`, beside its NMEA) reaches gpsd's
/// clients in TPV as gpsd 3.26 and later put it (`ant` only when open or shorted, `antPwr`
/// when known, `jam` when not 0), from the epoch it is said before, and not earlier.
@Suite(.timeLimit(.minutes(2))) struct IntegrityServeTests {
  static func hardware(antenna: Int, power: Int, jamming: Int, indicator: Int) -> [UInt8] {
    var payload = [UInt8](repeating: 0, count: 60)
    (payload[20], payload[21], payload[22], payload[45]) = (UInt8(antenna), UInt8(power), UInt8(jamming << 2), UInt8(indicator))
    return UBXFrame(messageClass: 0x0A, id: 0x09, payload: payload).bytes
  }

  @Test func theAntennaAndJammingAreServedInTPVAsGPSDServesThem() async throws {
    let epochs = Array(UBXOnlyServeTests.simulation.epochs())
    let open = Self.hardware(antenna: 4, power: 1, jamming: 1, indicator: 0)
    let jammed = Self.hardware(antenna: 2, power: 1, jamming: 2, indicator: 37)
    let bursts = epochs.enumerated().map { index, epoch in (index == 4 ? open : index == 8 ? jammed : []) + epoch.bytes }
    let served = try await UBXOnlyServeTests.served(bursts)

    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let tpvs = UBXOnlyServeTests.byTime(served, "TPV")
    var compared = 0
    for (index, epoch) in epochs.enumerated() {
      guard let tpv = tpvs[formatter.string(from: Date(timeIntervalSince1970: epoch.truth.time.secondsSince1970))] else { continue }
      compared += 1
      let said = (tpv["ant"] as? Int, tpv["antPwr"] as? Int, tpv["jam"] as? Int)
      switch index {
      case ..<4: #expect(said == (nil, nil, nil), "epoch \(index): \(tpv)")
      case 4..<8: #expect(said == (2, 2, nil), "epoch \(index): \(tpv)")
      default: #expect(said == (nil, 2, 37), "epoch \(index): \(tpv)")
      }
    }
    #expect(compared >= epochs.count - 3, "\(tpvs.keys.sorted())")
  }
}

/// gpsbridge's INTEGRITY objects: a client that asks with `"integrity":true` is told what each
/// receiver says of jamming, spoofing and its antenna when it asks and at each change, before
/// the first TPV the change holds for; a client that does not ask sees gpsd's stream only.
@Suite(.timeLimit(.minutes(2))) struct IntegrityWatchTests {
  /// A u-blox spoofed from the sixth epoch on, saying so in NAV-STATUS.
  static let simulation = Simulation(route: Route.demoDrive.lasting(12), profile: .ublox, attack: Attack(.spoofing, at: 6))

  /// `simulate --jam`'s u-blox: TPV's `jam` follows MON-HW's indicator epoch by epoch (10, then
  /// 25 more a second from the start), and INTEGRITY says the jamming state's steps.
  @Test func aJammedUBloxsIndicatorIsServedInEachTPV() async throws {
    let simulation = Simulation(route: Route.demoDrive.lasting(14), profile: .ublox, attack: Attack(.jamming, at: 5))
    let epochs = Array(simulation.epochs())
    let told = try await Self.served(epochs.map(\.sent), watch: #"?WATCH={"enable":true,"json":true,"integrity":true};"#)
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    var compared = 0
    for (index, epoch) in epochs.enumerated() {
      let time = formatter.string(from: Date(timeIntervalSince1970: epoch.truth.time.secondsSince1970))
      guard let line = told.first(where: { $0.contains(#""class":"TPV""#) && $0.contains(#""time":"\#(time)""#) }),
        let tpv = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      else { continue }
      compared += 1
      #expect(tpv["jam"] as? Int == (index < 5 ? 10 : min(255, 10 + (index - 5) * 25)), "epoch \(index): \(line)")
    }
    #expect(compared >= epochs.count - 3)
    let states = told.filter { $0.contains(#""class":"INTEGRITY""#) }.compactMap { line in
      ["ok", "warning", "critical"].first { line.contains(#""jamming":"\#($0)""#) }
    }
    #expect(Array(states.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }) == ["ok", "warning", "critical"], "\(states)")
  }

  /// What a watcher asking with `watch` is told while `bursts` (an epoch each) are played to a
  /// serial receiver.
  static func served(_ bursts: [[UInt8]], watch: String) async throws -> [String] {
    let pty = try PseudoTerminal()
    defer { pty.unplug() }
    let server = try GPSDServer.startedOnAFreePort()
    defer { server.stop() }
    let feeding = Task(executorPreference: DedicatedExecutor.own()) {
      await server.feed(from: .serial(path: pty.slavePath, baudRate: .fixed(9600)))
    }
    defer { feeding.cancel() }
    let client = try RawClient(port: try #require(server.port))
    try client.send(watch)
    #expect(await pty.waitUntilHeld())
    let playing = Task(executorPreference: DedicatedExecutor.own()) { await pty.play(bursts: bursts, every: .milliseconds(100)) }
    let lines = try await offThePool {
      client.readBlocking(for: 30) { $0.filter { $0.contains(#""class":"SKY""#) }.count >= bursts.count - 2 }
    }
    await playing.value
    return lines
  }

  @Test func aClientThatAsksIsToldEachChangeBeforeTheFixesItHoldsFor() async throws {
    let epochs = Array(Self.simulation.epochs())
    let pty = try PseudoTerminal()
    defer { pty.unplug() }
    let server = try GPSDServer.startedOnAFreePort()
    defer { server.stop() }
    let feeding = Task(executorPreference: DedicatedExecutor.own()) {
      await server.feed(from: .serial(path: pty.slavePath, baudRate: .fixed(9600)))
    }
    defer { feeding.cancel() }
    let port = try #require(server.port)
    let asking = try RawClient(port: port)
    try asking.send(#"?WATCH={"enable":true,"json":true,"integrity":true};"#)
    let plain = try RawClient(port: port)
    try plain.send(#"?WATCH={"enable":true,"json":true};"#)
    #expect(await pty.waitUntilHeld())
    let playing = Task(executorPreference: DedicatedExecutor.own()) {
      await pty.play(bursts: epochs.map(\.sent), every: .milliseconds(100))
    }
    let enough: @Sendable ([String]) -> Bool = { $0.filter { $0.contains(#""class":"SKY""#) }.count >= epochs.count - 2 }
    let told = try await offThePool { asking.readBlocking(for: 30, until: enough) }
    let notTold = try await offThePool { plain.readBlocking(for: 30, until: enough) }
    await playing.value

    #expect(told.contains { $0.contains(#""class":"WATCH""#) && $0.contains(#""integrity":true"#) }, "the WATCH says it back")
    #expect(!notTold.contains { $0.contains("INTEGRITY") || $0.contains("integrity") }, "\(notTold.filter { $0.contains("ntegrity") })")
    let integrity = told.filter { $0.contains(#""class":"INTEGRITY""#) }
    #expect(integrity.last?.contains(#""spoofing":"indicated","spoofingSource":"NAV-STATUS""#) == true, "\(integrity)")
    #expect(integrity.contains { $0.contains(#""spoofing":"none""#) }, "\(integrity)")
    #expect(integrity.last?.contains(#""antenna":"ok","antennaPower":"on","antennaSource":"MON-HW","jam":10"#) == true, "\(integrity)")
    // Said after the last fix before the attack and before the first one under it.
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    func tpv(_ index: Int) -> Int? {
      let time = formatter.string(from: Date(timeIntervalSince1970: epochs[index].truth.time.secondsSince1970))
      return told.firstIndex { $0.contains(#""class":"TPV""#) && $0.contains(#""time":"\#(time)""#) }
    }
    let indicated = try #require(told.firstIndex { $0.contains(#""spoofing":"indicated""#) })
    #expect(try #require(tpv(5)) < indicated && indicated < (try #require(tpv(6))), "\(told)")

    // One who asks later is told the state at once.
    let late = try RawClient(port: port)
    try late.send(#"?WATCH={"enable":true,"json":true,"integrity":true};"#)
    let lines = try await offThePool { late.readBlocking(for: 60) { $0.contains { $0.contains(#""class":"INTEGRITY""#) } } }
    #expect(lines.contains { $0.contains(#""class":"INTEGRITY""#) && $0.contains(#""spoofing":"indicated""#) }, "\(lines)")
  }
}
