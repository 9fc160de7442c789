import Foundation
import NMEASimulation
import Plumbing
import Station
import TestHelpers
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

  /// Without a receiver named, a station waits, says so once, and serves each receiver as it
  /// is plugged in: once, under the name it had when found, though udev adds its `by-id` link
  /// a moment later.
  @Test func aStationWithDiscoveryServesEachReceiverPluggedIn() async throws {
    let machine = try ScratchMachine("station")
    let configuration = Station.Configuration(discovery: DeviceDiscovery(sysfsRoot: machine.sysfsRoot, devRoot: machine.devRoot))
    let said = Locked<[String]>([])
    let station = Station(configuration) { message in said.withLock { $0.append(message) } }
    let served = Locked<[String]>([])
    let running = Task {
      try await station.run { member in
        served.withLock { $0.append(member.name) }
        try? await Task.sleep(for: .seconds(120))
      }
    }
    defer { running.cancel() }
    #expect(await eventually(timeout: .seconds(20)) { !said.withLock { $0 }.isEmpty })
    #expect(
      said.withLock { $0 }.first?.hasPrefix("gpsbridge: No receiver is plugged in yet: waiting for one") == true, "\(said.withLock { $0 })")
    #expect(served.withLock { $0 }.isEmpty)
    let first = try PseudoTerminal()
    defer { first.unplug() }
    let node = try machine.plugIn(first, as: "ttyACM0")
    #expect(await eventually(timeout: .seconds(20)) { served.withLock { $0 } == [node] }, "\(served.withLock { $0 })")
    try machine.addStableLink("usb-u-blox_AG_GNSS_receiver-if00", to: "ttyACM0")
    let second = try PseudoTerminal()
    defer { second.unplug() }
    let other = try machine.plugIn(second, as: "ttyACM1", product: "01a8")
    #expect(await eventually(timeout: .seconds(20)) { served.withLock { $0 }.count == 2 }, "\(served.withLock { $0 })")
    #expect(served.withLock { $0 } == [node, other])
    #expect(said.withLock { $0 }.count == 1, "\(said.withLock { $0 })")
  }
}
