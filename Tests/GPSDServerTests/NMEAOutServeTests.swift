import Foundation
import NMEA
import NMEASimulation
import TestHelpers
import Testing

/// NMEA out (`--nmea-tcp`, `--nmea-udp`) of a u-blox left speaking UBX only: it sends no
/// sentences to pass on, so its epochs are written from its fixes, and gpsd itself, reading
/// both streams as receivers (`tcp://`, `udp://`), makes of them the positions serve's own
/// TPVs show.
@Suite(
  .timeLimit(.minutes(3)),
  .enabled(if: Installed.path("gpspipe") != nil && FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd"), "needs gpsd"))
struct NMEAOutServeTests {
  @Test func aUBXOnlyReceiversNMEAOutIsReadByGPSDAsAReceiver() async throws {
    let (port, tcp, udp, gpsdPort) = (FakeGPSD.freePort(), FakeGPSD.freePort(), FakeGPSD.freePort(), FakeGPSD.freePort())
    let directory = scratchDirectory("ubx-nmea-out-\(tcp)")
    let simulation = Simulation(route: Route.demoDrive.lasting(40), profile: .ublox)
    let capture = directory.appendingPathComponent("ubx-only.ubx")
    let ubx = simulation.epochs().flatMap { simulation.ubx($0) }
    var framer = Framer()
    framer.append(ubx)
    framer.finish()
    #expect(framer.next() == nil, "the capture holds no NMEA sentence")
    try Data(ubx).write(to: capture)
    // Five epochs a second, played again and again: gpsd, which comes later, still reads some.
    let server = try RunningProgram(
      [
        "serve", "--replay", capture.path, "--speed", "5", "--loop", "--listen", "127.0.0.1:\(port)", "--nmea-tcp", String(tcp),
        "--nmea-udp", "127.0.0.1:\(udp)",
      ], in: directory)
    defer { server.stop() }
    #expect(await server.serving(within: .seconds(90)), "\(server.said)")
    let ours = try RunningProgram(
      ["-oL", Installed.path("gpspipe")!, "-w", "127.0.0.1:\(port)"], in: directory, keepsOutput: true, program: "/usr/bin/stdbuf")
    defer { ours.stop() }
    let gpsd = try RunningProgram(
      [
        "-N", "-n", "-D", "3", "-S", String(gpsdPort), "-F", directory.appendingPathComponent("gpsd.sock").path, "tcp://127.0.0.1:\(tcp)",
        "udp://127.0.0.1:\(udp)",
      ], in: directory, program: "/usr/sbin/gpsd")
    defer { gpsd.stop() }
    #expect(await gpsd.until { gpsd.said.contains("listening on port \(gpsdPort)") }, "\(gpsd.said)")

    let read = try await runProgram(Installed.path("gpspipe")!, ["-w", "-n", "60", "127.0.0.1:\(gpsdPort)"], timeout: 90)
    // Each position gpsd made of the sentences is serve's own for that epoch, to the
    // sentences' precision (GGA's five decimals of a minute: 2e-7°).
    let served = { BestReceiverServeTests.Setup.tpvs(ours.printed, device: capture.path) }
    #expect(await ours.until(timeout: .seconds(60)) { served().count >= 10 }, "\(ours.printed.suffix(800)) \(server.said)")
    let byTime = Dictionary(served().map { ($0["time"] as? String ?? "", $0) }) { first, _ in first }
    for source in ["tcp://127.0.0.1:\(tcp)", "udp://127.0.0.1:\(udp)"] {
      let throughGPSD = BestReceiverServeTests.Setup.tpvs(read.output, device: source).filter { $0["lat"] != nil }
      var compared = 0
      for tpv in throughGPSD {
        guard let time = tpv["time"] as? String, let theirs = byTime[time], let latitude = tpv["lat"] as? Double,
          let longitude = tpv["lon"] as? Double
        else { continue }
        #expect(abs(latitude - (theirs["lat"] as? Double ?? 0)) < 2e-7, "\(source): \(tpv) against \(theirs)")
        #expect(abs(longitude - (theirs["lon"] as? Double ?? 0)) < 2e-7, "\(source): \(tpv) against \(theirs)")
        #expect(tpv["mode"] as? Int == theirs["mode"] as? Int, "\(source): \(tpv) against \(theirs)")
        compared += 1
      }
      #expect(compared >= 5, "\(source): epochs compared of \(throughGPSD.count); \(read.output.suffix(1500)) \(gpsd.said.suffix(800))")
    }
  }
}
