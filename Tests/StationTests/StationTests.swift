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
@Suite(.timeLimit(.minutes(3)))
struct StationTests {
  static let shortDrive = Capture.simulated(Simulation(route: Route.demoDrive.lasting(5), profile: .ublox, seed: 1))

  @Test func eachReceiverIsServedUpToTheLimitAndTheRestAreSaid() async throws {
    let configuration = Station.Configuration(
      sources: [
        Station.Source(.replay(Self.shortDrive, speed: .max), name: "first"),
        Station.Source(.replay(Self.shortDrive, speed: .max), name: "second"),
      ], maximumReceivers: 1)
    let said = Watched<[String]>([])
    let station = Station(configuration) { message in said.withLock { $0.append(message) } }
    let served = Watched<[String: Int]>([:])
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
    let served = Watched(false)
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
    let said = Watched<[String]>([])
    let station = Station(configuration) { message in said.withLock { $0.append(message) } }
    let served = Watched<[String]>([])
    let running = Task {
      try await station.run { member in
        served.withLock { $0.append(member.name) }
        await untilCancelled()
      }
    }
    defer { running.cancel() }
    #expect(await said.until(timeout: .seconds(20)) { !$0.isEmpty })
    #expect(
      said.withLock { $0 }.first?.hasPrefix("gpsbridge: No receiver is plugged in yet: waiting for one") == true, "\(said.withLock { $0 })")
    #expect(served.withLock { $0 }.isEmpty)
    let first = try PseudoTerminal()
    defer { first.unplug() }
    let node = try machine.plugIn(first, as: "ttyACM0")
    #expect(await served.until(timeout: .seconds(20)) { $0 == [node] }, "\(served.withLock { $0 })")
    try machine.addStableLink("usb-u-blox_AG_GNSS_receiver-if00", to: "ttyACM0")
    let second = try PseudoTerminal()
    defer { second.unplug() }
    let other = try machine.plugIn(second, as: "ttyACM1", product: "01a8")
    #expect(await served.until(timeout: .seconds(20)) { $0.count == 2 }, "\(served.withLock { $0 })")
    #expect(served.withLock { $0 } == [node, other])
    #expect(said.withLock { $0 }.count == 1, "\(said.withLock { $0 })")
  }

  /// A path the pattern matches whose receiver ended for good (no serial device: a link to
  /// /dev/null) is not found again at every change in its directory (it was said again every
  /// few seconds), only once its node is another.
  @Test func anEndedReceiverIsFoundAgainOnlyWhenItsNodeChanges() async throws {
    let directory = scratchDirectory("gpsbridge-ended-\(UUID().uuidString.prefix(8))")
    let link = directory.appendingPathComponent("gps0").path
    #expect(symlink("/dev/null", link) == 0)
    let pattern = try #require(try DevicePattern(directory.path + "/gps*"))
    let served = Watched<[String]>([])
    let station = Station(Station.Configuration(patterns: [Station.Pattern(pattern)]))
    let running = Task {
      try await station.run { member in
        served.withLock { $0.append(member.name) }
        await member.receiver.run()
      }
    }
    defer { running.cancel() }
    // (Bounds, not paces: a loaded clean-clone run took more than 20 s to serve the first.)
    #expect(await served.until(timeout: .seconds(60)) { $0 == [link] }, "\(served.withLock { $0 })")
    #expect(await eventually(timeout: .seconds(20)) { station.hasStoppedReceiver })
    // Its slot given back (it ended) before anything changes in the directory.
    #expect(await eventually(timeout: .seconds(20)) { station.servedNames.isEmpty })
    // Unrelated changes in the directory, then another path that matches (gps1, no serial
    // device either): gps1 is found, gps0 not again. The changes are looked at in order, and
    // once gps1 has ended every receiver found before it has been served.
    for name in ["gps-other.txt", "notes"] {
      _ = FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: Data())
    }
    let other = directory.appendingPathComponent("gps1").path
    #expect(symlink("/dev/zero", other) == 0)
    #expect(
      await eventually(timeout: .seconds(20)) { served.withLock { $0 }.contains(other) && station.servedNames.isEmpty },
      "\(served.withLock { $0 })")
    #expect(served.withLock { $0 } == [link, other])
    // Plugged in again (the link made anew, to another node): found again.
    unlink(link)
    #expect(symlink("/dev/zero", link) == 0)
    #expect(await served.until(timeout: .seconds(20)) { $0 == [link, other, link] }, "\(served.withLock { $0 })")
  }
}
