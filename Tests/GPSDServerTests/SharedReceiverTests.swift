import Foundation
import GPSDServer
import GPSLocation
import NMEASimulation
import Plumbing
import TestHelpers
import Testing
import TimeService
import Transports

/// One receiver, four users: a `LocationManager`, a gpsd server's client, a recording and a
/// clock feed (the receiver's time samples). Nobody runs the receiver: each wants what it
/// needs, the session runs while anyone does, so the device is opened once, each user gets
/// every epoch while it listens, and the device is let go when the last one leaves.
@Suite(.timeLimit(.minutes(2))) struct SharedReceiverTests {
  static let epochs = 30

  @Test func fourUsersShareOneOpenAndTheDeviceIsLetGoWhenTheLastLeaves() async throws {
    let link = PseudoTerminal.temporaryLink("gps-shared")
    let pty = try PseudoTerminal(link: link)
    defer { pty.unplug() }
    var timing = SerialSource.Timing()
    timing.silenceTimeout = .seconds(30)
    let receiver = Receiver(SerialSource(path: link, baudRate: .fixed(9600), timing: timing))
    // Stamped now and played without a pause, so the clock feed's sampler takes its time; the
    // receiver sends until the test has seen all it needs (up to two minutes of epochs), so a
    // slow machine never finds it silent before the last user has had its samples.
    let route = Route.demoDrive.lasting(120).startingNow
    let written = Simulation(route: route, profile: .ublox, rate: 10).epochs().prefix(1200).map(\.bytes)
    let enough = Locked(false)
    // Every open the receiver's tasks make is counted by the system-call shims.
    let calls = SystemCallScript([:])
    try await SystemCallScript.$current.withValue(calls) {
      // The recording: a listener of the bytes.
      let recorded = Watched<[UInt8]>([])
      let recording = receiver.listen(wanting: .bytes) { event in if case .bytes(let bytes) = event { recorded.withLock { $0 += bytes } } }
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
      // The clock feed's samples.
      let samples = Watched(0)
      let feeding = Task {
        for await _ in receiver.timeSamples() { samples.withLock { $0 += 1 } }
      }
      #expect(await pty.waitUntilHeld())
      let playing = Task {
        try await offThePool { pty.playBlocking(bursts: written, every: 0.1, patience: .seconds(60)) { enough.withLock { $0 } } }
      }

      let lines = await client.read(for: 30) { lines in
        lines.filter { $0.hasPrefix(#"{"class":"TPV""#) && $0.contains(#""mode":3"#) }.count >= Self.epochs
      }
      var locations = 0
      while locations < Self.epochs, let action = await actions.next() {
        if case .didUpdateLocations(let batch) = action { locations += batch.count }
      }
      // Each epoch reached each of them (a sample a second for the clock).
      #expect(locations == Self.epochs)
      let tpvs = lines.filter { $0.hasPrefix(#"{"class":"TPV""#) && $0.contains(#""mode":3"#) }.count
      #expect(tpvs >= Self.epochs)
      #expect(await samples.until { $0 >= 2 })

      // They leave in turn; while one is left the device stays open, never opened again.
      await manager.stopUpdatingLocation()
      serving.cancel()
      await serving.value
      #expect(pty.isHeld)
      let sixtyEpochs = written[0..<(Self.epochs * 2)].joined().count
      #expect(await recorded.until { $0.count >= sixtyEpochs })
      receiver.stopListening(recording)
      #expect(pty.isHeld)
      let recordedBytes = recorded.withLock { $0 }
      #expect(recordedBytes == Array(written.joined().prefix(recordedBytes.count)), "the recording holds every byte, in order")
      let before = samples.withLock { $0 }
      #expect(await samples.until { $0 >= before + 2 })
      enough.withLock { $0 = true }
      try await playing.value
      #expect(calls.opened.filter { $0 == link }.count == 1, "the device was opened once: \(calls.opened)")
      feeding.cancel()
      await feeding.value
      await receiver.sessionClosed()
    }
    // With every user gone the session ends and lets the device go.
    #expect(!pty.isHeld)
    #expect(calls.opened.filter { $0 == link }.count == 1)
  }
}
