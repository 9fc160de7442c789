import Foundation
import NMEA
import NMEASimulation
import Plumbing
import TestHelpers
import Testing
import Transports

/// A receiver's events reach a listener in the order they happened: the line speed before
/// any fix at that speed, the pause after the last fix before an unplug, and the resume before
/// the first fix after the replug.
@Suite(.timeLimit(.minutes(2))) struct EventOrderTests {
  /// What the listener heard, in order, reduced to what the order is about.
  enum Heard: Equatable, Sendable {
    case lineSpeed(Int)
    case fix
    case paused
    case resumed
  }

  @Test func statusAndFixesArriveInTheOrderTheyHappenedAcrossABaudChangeAndAnUnplug() async throws {
    let link = PseudoTerminal.temporaryLink("gps-order")
    var timing = SerialSource.Timing()
    timing.probeWindow = .milliseconds(300)
    timing.silenceTimeout = .seconds(30)
    let receiver = Receiver(SerialSource(path: link, baudRate: .automatic, timing: timing))
    let heard = Watched<[Heard]>([])
    receiver.listen(wanting: .fixes) { event in
      let item: Heard? =
        switch event {
        case .lineSpeed(let rate): .lineSpeed(rate)
        case .fix(let fix) where fix.hasPosition: .fix
        case .status(.paused): .paused
        case .status(.resumed): .resumed
        default: nil
        }
      if let item { heard.withLock { $0.append(item) } }
    }
    var epochs = Simulation(route: Route.demoDrive.lasting(600), profile: .ublox, rate: 10).epochs().makeIterator()
    var pty = try PseudoTerminal(link: link)
    let running = Task { await receiver.run() }
    defer { running.cancel() }
    #expect(await pty.waitUntilHeld())

    // Noise at the first rate tried, until autobaud moves on (on a busy machine perhaps
    // past the second rate too); then NMEA.
    let first = BaudRate.candidates[0]
    let noise = [UInt8](repeating: 0x55, count: 64)
    _ = await eventually(timeout: .seconds(20), every: .milliseconds(20)) {
      pty.write(noise)
      return pty.slaveSpeed != first
    }
    #expect(pty.slaveSpeed != first)
    func play(_ count: Int, into pty: PseudoTerminal) async throws {
      await pty.play(bursts: (0..<count).compactMap { _ in epochs.next()?.bytes }, every: .milliseconds(30))
    }
    try await play(20, into: pty)
    let beforeUnplug = heard.withLock { $0.filter { $0 == .fix }.count }
    #expect(beforeUnplug > 0)

    pty.unplug()
    #expect(await heard.until { $0.contains(.paused) })
    pty = try PseudoTerminal(link: link)
    defer { pty.unplug() }
    #expect(await pty.waitUntilHeld())
    try await play(20, into: pty)
    #expect(await heard.until { $0.filter { $0 == .fix }.count >= beforeUnplug + 10 })

    let order = heard.withLock { $0 }
    let paused = try #require(order.firstIndex(of: .paused))
    let resumed = try #require(order.firstIndex(of: .resumed))
    let firstSession = order[..<paused]
    let secondSession = order[resumed...]
    func isSpeed(_ heard: Heard) -> Bool { if case .lineSpeed = heard { true } else { false } }
    // Before the unplug: the speed it settled at (not the first one tried), and no fix
    // before it.
    let settled = try #require(firstSession.firstIndex(where: isSpeed), "\(order)")
    #expect(firstSession[..<settled].allSatisfy { $0 != .fix }, "\(order)")
    #expect(firstSession[settled] != .lineSpeed(first), "\(order)")
    // After the replug: resumed, then the speed, then fixes; no fix in between.
    #expect(paused < resumed)
    #expect(order[paused..<resumed].allSatisfy { $0 != .fix }, "\(order)")
    let again = try #require(secondSession.firstIndex(where: isSpeed), "\(order)")
    #expect(secondSession[..<again].allSatisfy { $0 != .fix }, "\(order)")
  }
}
