import Foundation
import GPSDServer
import GPSLocation
import NMEASimulation
import Plumbing
import TestHelpers
import Testing
import Transports

/// One receiver, three users: a `LocationManager`, a gpsd server's client and a recording. The
/// receiver owns its session, so the device is opened once and each user gets every epoch.
@Suite(.timeLimit(.minutes(2))) struct SharedReceiverTests {
  static let epochs = 30

  @Test func aManagerAServerAndARecordingShareOneReceiverAndOneOpen() async throws {
    let link = PseudoTerminal.temporaryLink("gps-shared")
    let pty = try PseudoTerminal(link: link)
    defer { pty.unplug() }
    var timing = SerialSource.Timing()
    timing.silenceTimeout = .seconds(30)
    let receiver = Receiver(SerialSource(path: link, baudRate: .fixed(9600), timing: timing))
    let written = Simulation(route: Route.demoDrive.lasting(60), profile: .ublox, rate: 10).epochs().prefix(Self.epochs).map(\.bytes)
    // Every open the receiver's tasks make is counted by the system-call shims.
    let calls = SystemCallScript([:])
    try await SystemCallScript.$current.withValue(calls) {
      // The recording: a listener of the bytes, and a task running the receiver.
      let recorded = Locked<[UInt8]>([])
      receiver.listen(wanting: .bytes) { event in if case .bytes(let bytes) = event { recorded.withLock { $0 += bytes } } }
      let recording = Task { await receiver.run() }
      // The manager.
      let manager = LocationManager.receiver(receiver)
      var actions = manager.delegate().makeAsyncIterator()
      await manager.startUpdatingLocation()
      // The server, and a client watching its JSON.
      let server = try GPSDServer.startedOnAFreePort()
      defer { server.stop() }
      let serving = Task { await server.serve(receiver, device: link) }
      let client = try RawClient(port: server.port ?? 0)
      try client.send(#"?WATCH={"enable":true,"json":true};"#)
      await client.read(for: 10) { lines in lines.contains { $0.hasPrefix(#"{"class":"WATCH""#) } }
      #expect(await pty.waitUntilHeld())

      try await offThePool {
        pty.playBlocking(bursts: written, every: 0.1)
      }
      let lines = await client.read(for: 30) { lines in
        lines.filter { $0.hasPrefix(#"{"class":"TPV""#) && $0.contains(#""mode":3"#) }.count >= Self.epochs
      }
      var locations = 0
      while locations < Self.epochs, let action = await actions.next() {
        if case .didUpdateLocations(let batch) = action { locations += batch.count }
      }

      // Every epoch reached all three (the last one at its learned end, before any unplug).
      #expect(locations == Self.epochs)
      let tpvs = lines.filter { $0.hasPrefix(#"{"class":"TPV""#) && $0.contains(#""mode":3"#) }.count
      #expect(tpvs == Self.epochs)
      #expect(recorded.withLock { $0 } == written.flatMap { $0 })
      #expect(calls.opened.filter { $0 == link }.count == 1, "the device was opened once: \(calls.opened)")

      await manager.stopUpdatingLocation()
      serving.cancel()
      recording.cancel()
      await serving.value
      await recording.value
    }
    // With every user gone the session ends and lets the device go.
    #expect(!pty.isHeld)
  }
}
