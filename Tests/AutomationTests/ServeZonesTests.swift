import Foundation
import TestHelpers
import Testing

/// `serve --regions --visits --mqtt`: the engine follows the served receiver; Python's gps
/// module watching with `"regions":true` gets REGION and VISIT objects, a client that does not
/// ask (Python's gps, gpspipe) sees exactly gpsd's classes, and the broker gets the tracker.
@Suite(
  .serialized, .timeLimit(.minutes(3)), .enabled(if: Broker.mosquitto != nil && Broker.subscriber != nil, "mosquitto is not installed"))
struct ServeZonesTests {
  static let python = "/usr/bin/python3"
  static let gpsdClasses: Set<String> = ["VERSION", "DEVICES", "DEVICE", "WATCH", "TPV", "SKY", "GST", "ATT", "PPS", "TOFF"]

  @Test(
    .enabled(
      if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gps/__init__.py") && installed("gpspipe") != nil,
      "python3-gps and gpsd-clients are not installed"))
  func regionsReachTheClientsThatAskAndTheBrokerAndNoOneElse() async throws {
    let directory = scratchDirectory("serve-zones-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let (broker, subscriber) = try await BrokerTests.brokerAndSubscriber(in: directory)
    defer {
      subscriber.stop()
      broker.stop()
    }
    let (capture, home) = try await BrokerTests.drive(in: directory)
    let parts = home.split(separator: ",")
    let regions = directory.appendingPathComponent("regions.json")
    try Data(
      #"[{"identifier": "home", "center": {"latitude": \#(parts[1]), "longitude": \#(parts[2])}, "radius": 50}]"#.utf8
    ).write(to: regions)

    let port = FakeGPSD.freePort()
    let serve = try RunningProgram(
      [
        "serve", "--replay", capture, "--speed", "4", "--listen", "127.0.0.1:\(port)", "--regions", regions.path, "--visits",
        "--visit-dwell", "20", "--mqtt", "mqtt://127.0.0.1:\(broker.port)/box",
      ], in: directory)
    defer { serve.stop() }
    #expect(await serve.until(timeout: .seconds(20)) { serve.said.contains("serving") }, "\(serve.said)")
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/watch.py").path
    async let asking = runProgram(URL(fileURLWithPath: Self.python), [script, "\(port)", "true", "30"], timeout: 60)
    async let plain = runProgram(URL(fileURLWithPath: Self.python), [script, "\(port)", "false", "30"], timeout: 60)
    async let pipe = runProgram(
      URL(fileURLWithPath: installed("gpspipe") ?? "/usr/bin/gpspipe"), ["-w", "-n", "40", "127.0.0.1:\(port)"], timeout: 60)
    let (watcher, other, gpspipe) = try await (asking, plain, pipe)

    let objects = watcher.output.split(separator: "\n").filter { $0.hasPrefix("OBJECT ") }.map { String($0.dropFirst(7)) }
    #expect(
      objects.contains { $0.contains(#""class": "REGION""#) && $0.contains(#""event": "didEnterRegion""#) },
      "\(watcher.output.suffix(2000))")
    #expect(objects.contains { $0.contains(#""class": "REGION""#) && $0.contains(#""event": "didExitRegion""#) })
    #expect(objects.contains { $0.contains(#""class": "VISIT""#) && $0.contains(#""device": "\#(capture)""#) }, "\(objects)")
    #expect(watcher.output.contains(#""regions": true"#), "the WATCH says the extension back")
    // Who did not ask sees gpsd's classes only, and a WATCH without the extension.
    let classes = Set(other.output.split(separator: "\n").filter { $0.hasPrefix("CLASS ") }.map { String($0.dropFirst(6)) })
    #expect(classes.isSubset(of: Self.gpsdClasses) && classes.contains("TPV"), "\(classes)")
    #expect(!other.output.contains("regions"), "\(other.output.prefix(1000))")
    #expect(gpspipe.status == 0 && gpspipe.output.contains(#""class":"TPV""#), "\(gpspipe.error)")
    #expect(!gpspipe.output.contains("REGION") && !gpspipe.output.contains("regions"))
    // The broker has the tracker's state and every region event.
    #expect(
      await subscriber.until(timeout: .seconds(20)) {
        subscriber.payloads(on: "box/drive_nmea/state") == ["not_home", "home", "not_home"]
      },
      "\(subscriber.payloads(on: "box/drive_nmea/state")) \(serve.said)")
    #expect(serve.said.contains("gpsbridge: \(capture) entered home."), "\(serve.said)")
    serve.stop()
    #expect(await subscriber.until(timeout: .seconds(10)) { subscriber.payloads(on: "box/availability").last == "offline" })
  }
}
