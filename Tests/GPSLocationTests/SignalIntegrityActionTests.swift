import Foundation
import GPSLocation
import NMEASimulation
import Testing

/// A Swift program hears what the receiver says of its signals as an action, in order with the
/// locations: the change before the first location it holds for.
@Suite(.timeLimit(.minutes(3))) struct SignalIntegrityActionTests {
  @Test func aSpoofedUBloxSaysSoBeforeItsFirstSpoofedLocation() async throws {
    let simulation = Simulation(route: Route.demoDrive.lasting(30), profile: .ublox, attack: Attack(.spoofing, at: 20))
    let manager = LocationManager.simulated(simulation, speed: .max)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    var heard: [String] = []
    for await action in stream {
      switch action {
      case .didUpdateLocations(let locations):
        heard += locations.map { "location \(Int($0.timestamp.timeIntervalSince1970) % 60)" }
      case .didChangeSignalIntegrity(let integrity):
        heard.append("spoofing \(integrity.spoofing)")
      default: break
      }
      if case .didFailWithError = action { break }
    }
    // Said before the first epoch: all is well (MON-HW, then NAV-STATUS: two changes).
    #expect(heard.prefix(3) == ["spoofing unknown", "spoofing none", "location 0"], "\(heard)")
    let indicated = try #require(heard.firstIndex(of: "spoofing indicated"))
    #expect(heard[indicated - 1] == "location 19" && heard[indicated + 1] == "location 20", "\(heard)")
    #expect(heard.filter { $0.hasPrefix("spoofing") }.count == 3, "said once each change: \(heard)")
  }

  /// A jammed u-blox's indicator moves every second; its states change twice: the action
  /// says each change of a state, not each second (webhooks and MQTT send what it says).
  @Test func aMovingIndicatorAloneIsNoNews() async {
    let simulation = Simulation(route: Route.demoDrive.lasting(30), profile: .ublox, attack: Attack(.jamming, at: 10))
    let manager = LocationManager.simulated(simulation, speed: .max)
    let stream = manager.delegate()
    await manager.startUpdatingLocation()
    var said: [String] = []
    for await action in stream {
      if case .didChangeSignalIntegrity(let integrity) = action { said.append("\(integrity.jamming) \(integrity.spoofing)") }
      if case .didFailWithError = action { break }
    }
    #expect(said == ["ok unknown", "ok none", "warning none", "critical none"], "\(said)")
  }

  @Test func itsJSONLineSaysTheStatesByNameAndTheirMessages() {
    var hardware = [UInt8](repeating: 0, count: 60)
    (hardware[20], hardware[21], hardware[22], hardware[45]) = (4, 1, 3 << 2, 200)
    var integrity = SignalIntegrity()
    _ = integrity.take(UBXFrame(messageClass: 0x0A, id: 0x09, payload: hardware))
    #expect(
      LocationManager.Action.didChangeSignalIntegrity(integrity).jsonLine
        == #"{"event":"didChangeSignalIntegrity","integrity":{"jamming":"critical","jammingSource":"MON-HW","spoofing":"unknown","antenna":"open","antennaPower":"on","antennaSource":"MON-HW","jam":200}}"#
    )
  }
}
