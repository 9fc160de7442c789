import Foundation
import NMEASimulation
import Plumbing
import Station
import Testing
import TimeService
import Transports

/// A station serves its receivers each through the caller's closure, up to its limit, and
/// says which it turned away.
@Suite(.timeLimit(.minutes(1)))
struct StationTests {
  static let shortDrive = Capture.simulated(Simulation(route: Route.demoDrive.lasting(5), profile: .ublox, seed: 1))

  @Test func eachReceiverIsServedUpToTheLimitAndTheRestAreSaid() async throws {
    let configuration = Station.Configuration(
      sources: [
        Station.Source(.replay(Self.shortDrive, speed: .max), name: "first"),
        Station.Source(.replay(Self.shortDrive, speed: .max), name: "second"),
      ], maximumReceivers: 1)
    let said = Locked<[String]>([])
    let station = Station(configuration) { message in said.withLock { $0.append(message) } }
    let served = Locked<[String: Int]>([:])
    try await station.run { member in
      let fixes = Locked(0)
      member.receiver.listen(wanting: .fixes) { event in
        if case .fix = event { fixes.withLock { $0 += 1 } }
      }
      await member.receiver.run()
      served.withLock { $0[member.name] = fixes.withLock { $0 } }
    }
    #expect(served.withLock { Array($0.keys) } == ["first"])
    #expect((served.withLock { $0["first"] } ?? 0) >= 5)
    #expect(said.withLock { $0 } == ["gpsbridge: second is not opened: 1 receivers are served already, the most gpsd's clients can list."])
    #expect(!station.hasStoppedReceiver)
    #expect(station.timeServiceReport() == #"{"class":"TIMESERVICE","active":false}"#)
  }

  @Test func aRefclockThatCannotBeOpenedStopsTheStationBeforeItServes() async throws {
    var configuration = Station.Configuration(
      sources: [Station.Source(.replay(Self.shortDrive, speed: .max), name: "drive", pulses: .device("/dev/pps-that-is-not-there"))])
    configuration.clock = .init(chrony: NSTemporaryDirectory() + "gpsbridge-station-\(getpid()).sock")
    let station = Station(configuration)
    let served = Locked(false)
    let error = await #expect(throws: ClockFeedError.self) {
      try await station.run { _ in served.withLock { $0 = true } }
    }
    #expect(error?.description.contains("/dev/pps-that-is-not-there") == true, "\(String(describing: error))")
    #expect(!served.withLock { $0 })
  }
}
