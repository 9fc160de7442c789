import Foundation
import GPSD
import GPSDServer
import Station
import TestHelpers
import Testing
import Transports

/// The one policy for "which source": what a user named, else the receiver plugged in, else
/// gpsd if it answers, else nothing (the demo drive only when asked for): a location nobody
/// measured never passes for a receiver's.
@Suite(.timeLimit(.minutes(3)))
struct SourceChoiceTests {
  /// A machine with no serial device at all: an empty /sys and /dev of the test's own.
  static func emptyMachine() throws -> DeviceDiscovery {
    let root = scratchDirectory("gpsbridge-empty-machine")
    for folder in ["sys/class/tty", "dev"] {
      try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
    }
    return DeviceDiscovery(sysfsRoot: root.appendingPathComponent("sys").path, devRoot: root.appendingPathComponent("dev").path)
  }

  /// This process's inotify descriptor that watches `directory`, once there is one (as
  /// /proc/self/fdinfo lists its watches); `nil` if none comes.
  static func inotifyWatching(_ directory: String) async -> CInt? {
    var status = stat()
    guard stat(directory, &status) == 0 else { return nil }
    let inode = " ino:" + String(status.st_ino, radix: 16) + " "
    var found: CInt?
    _ = await eventually {
      let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fdinfo")) ?? []
      found = descriptors.compactMap { CInt($0) }.first { descriptor in
        let info = (try? String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8)) ?? ""
        return info.split(separator: "\n").contains { $0.hasPrefix("inotify ") && $0.contains(inode) }
      }
      return found != nil
    }
    return found
  }

  @Test func aNamedSourceIsTakenAsItIs() async throws {
    let discovery = try Self.emptyMachine()
    let device = await SourceChoice.device(path: "/dev/ttyUSB3", baud: .fixed(9600)).resolved(gpsd: nil, discovery: discovery)
    #expect(device == ChosenSource(source: .serial(path: "/dev/ttyUSB3", baudRate: .fixed(9600)), name: "/dev/ttyUSB3", reason: .named))
    let replay = await SourceChoice.replay(path: "drive.nmea", speed: .max).resolved(gpsd: nil, discovery: discovery)
    #expect(replay?.source == .replay(.file("drive.nmea"), speed: .max) && replay?.name == "a replay of drive.nmea")
    let gpsd = await SourceChoice.gpsd(GPSDAddress(host: "10.0.0.2", port: 2948)).resolved(gpsd: nil, discovery: discovery)
    #expect(gpsd?.source == .gpsd(host: "10.0.0.2", port: 2948) && gpsd?.reason == .named)
    let demo = await SourceChoice.demo.resolved(gpsd: nil, discovery: discovery)
    #expect(demo == .demo && demo?.source == .replay(.simulated(.demoDrive), speed: .realTime))
  }

  @Test func withNothingThereItIsNothingUnlessTheDemoIsAskedFor() async throws {
    let nobody = GPSDAddress(host: "127.0.0.1", port: FakeGPSD.freePort())
    #expect(await SourceChoice.automatic.resolved(gpsd: nobody, discovery: try Self.emptyMachine()) == nil)
    let chosen = await SourceChoice.automatic.resolved(gpsd: nobody, discovery: try Self.emptyMachine(), fallsBackToDemo: true)
    #expect(chosen?.isDemo == true)
    #expect(chosen?.source == .replay(.simulated(.demoDrive), speed: .realTime))
  }

  /// Waiting for a receiver wakes when one is plugged in, not on a timer, and takes it; a
  /// bridge chip that does not say GPS is no receiver until named.
  @Test func aWaitEndsWithTheReceiverPluggedIn() async throws {
    let machine = try ScratchMachine("wait")
    let discovery = DeviceDiscovery(sysfsRoot: machine.sysfsRoot, devRoot: machine.devRoot)
    let waiting = Task { await SourceChoice.waitForReceiver(discovery: discovery) }
    let watching = try #require(await Self.inotifyWatching(machine.devRoot))
    let bridge = try PseudoTerminal()
    defer { bridge.unplug() }
    try machine.plugIn(bridge, as: "ttyUSB0", vendor: "10c4", product: "ea60", productName: "CP2102 USB to UART Bridge Controller")
    // The bridge's arrival read by the wait (queued as the link was made) before the receiver comes.
    #expect(
      await eventually {
        var unread: CInt = 0
        return ioctl(watching, UInt(FIONREAD), &unread) == 0 && unread == 0
      })
    let receiver = try PseudoTerminal()
    defer { receiver.unplug() }
    let node = try machine.plugIn(receiver, as: "ttyACM3")
    let chosen = await waiting.value
    #expect(chosen == ChosenSource(source: .serial(path: node, baudRate: .automatic), name: node, reason: .foundReceiver))
  }

  @Test func aWaitCancelledEndsWithNothing() async throws {
    let machine = try ScratchMachine("cancelled")
    let waiting = Task {
      await SourceChoice.waitForReceiver(discovery: DeviceDiscovery(sysfsRoot: machine.sysfsRoot, devRoot: machine.devRoot))
    }
    // Cancelled once it waits (it watches the device directory from its start).
    #expect(await Self.inotifyWatching(machine.devRoot) != nil)
    waiting.cancel()
    #expect(await waiting.value == nil)
  }

  @Test func withoutAReceiverAGPSDThatAnswersIsTaken() async throws {
    var configuration = GPSDServer.Configuration()
    configuration.host = "127.0.0.1"
    configuration.port = FakeGPSD.freePort()
    let server = GPSDServer(configuration: configuration)
    try server.start()
    defer { server.stop() }
    let address = GPSDAddress(host: "127.0.0.1", port: configuration.port)
    let chosen = await SourceChoice.automatic.resolved(gpsd: address, discovery: try Self.emptyMachine())
    #expect(chosen == ChosenSource(source: .gpsd(host: "127.0.0.1", port: configuration.port), name: "gpsd \(address)", reason: .foundGPSD))
    // A server about to take gpsd's place does not count gpsd as a choice.
    #expect(await SourceChoice.automatic.resolved(gpsd: nil, discovery: try Self.emptyMachine()) == nil)
  }
}
