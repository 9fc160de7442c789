import Foundation
import GPSD
import GPSDServer
import Station
import TestHelpers
import Testing
import Transports

/// The one policy for "which source": what a user named, else the receiver plugged in, else
/// gpsd if it answers, else the demo drive.
@Suite(.timeLimit(.minutes(1)))
struct SourceChoiceTests {
  /// A machine with no serial device at all: an empty /sys and /dev of the test's own.
  static func emptyMachine() throws -> DeviceDiscovery {
    let root = scratchDirectory("gpsbridge-empty-machine")
    for folder in ["sys/class/tty", "dev"] {
      try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
    }
    return DeviceDiscovery(sysfsRoot: root.appendingPathComponent("sys").path, devRoot: root.appendingPathComponent("dev").path)
  }

  @Test func aNamedSourceIsTakenAsItIs() async throws {
    let discovery = try Self.emptyMachine()
    let device = await SourceChoice.device(path: "/dev/ttyUSB3", baud: .fixed(9600)).resolved(gpsd: nil, discovery: discovery)
    #expect(device == ChosenSource(source: .serial(path: "/dev/ttyUSB3", baudRate: .fixed(9600)), name: "/dev/ttyUSB3", reason: .named))
    let replay = await SourceChoice.replay(path: "drive.nmea", speed: .max).resolved(gpsd: nil, discovery: discovery)
    #expect(replay.source == .replay(.file("drive.nmea"), speed: .max) && replay.name == "a replay of drive.nmea")
    let gpsd = await SourceChoice.gpsd(GPSDAddress(host: "10.0.0.2", port: 2948)).resolved(gpsd: nil, discovery: discovery)
    #expect(gpsd.source == .gpsd(host: "10.0.0.2", port: 2948) && gpsd.reason == .named)
  }

  @Test func withNothingThereItIsTheDemoDrive() async throws {
    let nobody = GPSDAddress(host: "127.0.0.1", port: FakeGPSD.freePort())
    let chosen = await SourceChoice.automatic.resolved(gpsd: nobody, discovery: try Self.emptyMachine())
    #expect(chosen.isDemo)
    #expect(chosen.source == .replay(.simulated(.demoDrive), speed: .realTime))
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
    #expect(await SourceChoice.automatic.resolved(gpsd: nil, discovery: try Self.emptyMachine()).isDemo)
  }
}
