import Foundation
import NMEA
import NMEASimulation
import Plumbing
import TestHelpers
import Testing
import Transports

/// ``Receiver/send(_:)`` on a real pseudo-terminal: bytes go to the receiver while it streams,
/// through the same descriptor, without blocking its reader.
@Suite(.timeLimit(.minutes(2))) struct ReceiverSendTests {
  static let epochs = 60

  /// 256 KiB, far more than a pty holds (a few KiB), so the writer must wait for room again
  /// and again while the reader goes on reading a 10 Hz receiver.
  static let sent: [UInt8] = (0..<(256 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }

  @Test func bytesSentWhileTheReceiverStreamsArriveIntactAndNoEpochIsLost() async throws {
    let link = PseudoTerminal.temporaryLink("gps-send")
    let pty = try PseudoTerminal(link: link)
    defer { pty.unplug() }
    var timing = SerialSource.Timing()
    timing.silenceTimeout = .seconds(30)
    let receiver = Receiver(SerialSource(path: link, baudRate: .fixed(9600), timing: timing))
    let events = receiver.events(wanting: .fixes, bufferingNewest: 10_000)
    #expect(throws: Receiver.SendError.notConnected) { try receiver.send([0x24]) }
    let running = Task { await receiver.run() }
    defer { running.cancel() }
    #expect(await pty.waitUntilHeld())

    // The other side of the line, on threads of their own: a receiver sending 10 Hz epochs,
    // and whatever reads what gpsbridge writes to it.
    let written = Simulation(route: Route.demoDrive.lasting(60), profile: .ublox, rate: 10).epochs().prefix(Self.epochs).map(\.bytes)
    let streaming = Task {
      try await offThePool {
        pty.playBlocking(bursts: written, every: 0.1)
      }
    }
    let received = Task { try await offThePool { Self.read(from: pty.master, count: Self.sent.count) } }

    // Sent in 1 KiB pieces as fast as they are taken: a full queue says so, and the piece is
    // sent again until the queue takes it.
    var offset = 0
    while offset < Self.sent.count {
      let piece = Self.sent[offset..<min(offset + 1024, Self.sent.count)]
      var refused: Receiver.SendError? = .full
      _ = await eventually {
        do throws(Receiver.SendError) {
          try receiver.send(piece)
          refused = nil
        } catch {
          refused = error
        }
        return refused != .full
      }
      guard refused == nil else {
        Issue.record("the piece at \(offset) was refused: \(String(describing: refused))")
        return
      }
      offset += piece.count
    }
    let arrived = try await received.value
    #expect(arrived.count == Self.sent.count)
    #expect(arrived == Self.sent, "the bytes on the wire are the bytes sent, in order")
    try await streaming.value
    // Every epoch became a location, the last included once the line closes.
    pty.unplug()
    var fixes = 0
    for await event in events {
      if case .fix(let fix) = event, fix.hasPosition { fixes += 1 }
      if case .status(.paused) = event { break }
    }
    #expect(fixes == Self.epochs)
    #expect(throws: Receiver.SendError.notConnected) { try receiver.send([0x24]) }
  }

  /// Reads `count` bytes from a non-blocking descriptor, or what came within 60 s.
  static func read(from descriptor: CInt, count: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    let deadline = ContinuousClock.now + .seconds(60)
    while bytes.count < count, ContinuousClock.now < deadline {
      var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&entry, 1, 100) >= 0 else { break }
      let n = Foundation.read(descriptor, &buffer, buffer.count)
      if n > 0 { bytes += buffer[0..<n] }
    }
    return bytes
  }
}
