import Corrections
import Foundation
import Framing
import NMEASimulation
import Plumbing
import TestHelpers
import Testing
import Transports

/// The client against casters that misbehave (a Python caster of the test's own): what
/// reaches the receiver is exactly the good frames, in order; the receiver's GGA goes up only
/// with a fix; garbage, a caster that closes at once, a stall and a name that does not resolve
/// are each said, and the client tries again.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct NTRIPClientTests {
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Casters/fake-caster.py").path

  /// A receiver on a pty that sends a dated 1 Hz fix, a fake caster in `mode`, and a client.
  final class Rig: @unchecked Sendable {
    let pty: PseudoTerminal
    let receiver: Receiver
    let caster: Process
    let casterOutput = Watched("")
    let said = Watched<[String]>([])
    let client: NTRIPClient
    /// The caster's stream, a file of this test's own, removed with the rig.
    private let file = FileManager.default.temporaryDirectory.appendingPathComponent("caster-\(UUID().uuidString).rtcm")
    private var tasks: [Task<Void, Never>] = []

    init(mode: String, stream: [UInt8], ggaEvery: Duration? = nil, stall: Duration = .seconds(10), host: String = "127.0.0.1") async throws
    {
      pty = try PseudoTerminal()
      receiver = Receiver(SerialSource(path: pty.slavePath, baudRate: .fixed(9600)))
      try Data(stream).write(to: file)
      let port = FakeGPSD.freePort()
      caster = Process()
      caster.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
      caster.arguments = [NTRIPClientTests.script, String(port), mode, file.path]
      let output = Pipe()
      caster.standardOutput = output
      caster.standardError = FileHandle.nullDevice
      try caster.run()
      let casterOutput = self.casterOutput
      Thread.detachNewThread {
        while case let data = output.fileHandleForReading.availableData, !data.isEmpty {
          casterOutput.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
      }
      var configuration = NTRIPClient.Configuration(
        address: NTRIPAddress(host: host, port: port, mountpoint: "BASE1"), ggaInterval: ggaEvery)
      configuration.stall = stall
      let said = self.said
      client = NTRIPClient(configuration, receiver: receiver, said: { message in said.withLock { $0.append(message) } })
      let (receiver, client, pty) = (receiver, client, pty)
      tasks.append(Task(executorPreference: DedicatedExecutor.own()) { await receiver.run() })
      // The receiver's port open before the caster's first frame comes (a frame while it is
      // away is dropped and counted, and the test wants them all).
      _ = await pty.waitUntilHeld()
      tasks.append(Task(executorPreference: DedicatedExecutor.own()) { try? await client.run() })
      // A dated fix a second (RMC and GGA), stamped now.
      tasks.append(
        Task.detached {
          while !Task.isCancelled {
            pty.write(Rig.epoch())
            try? await Task.sleep(for: .milliseconds(500))
          }
        })
      _ = await eventually { casterOutput.withLock { $0 }.contains("LISTENING") }
    }

    static func epoch() -> String {
      let now = Int(Date().timeIntervalSince1970)
      let time = String(format: "%02d%02d%02d.00", now / 3600 % 24, now / 60 % 60, now % 60)
      func sentence(_ body: String) -> String {
        String(format: "$%@*%02X\r\n", body, body.utf8.reduce(UInt8(0), ^))
      }
      return sentence("GPRMC,\(time),A,4722.6140,N,00832.5620,E,0.0,0.0,261126,,,A")
        + sentence("GPGGA,\(time),4722.6140,N,00832.5620,E,1,09,0.9,410.0,M,47.0,M,,")
    }

    /// What the client has written to the receiver so far (read from the pty's other end).
    func written() -> [UInt8] {
      var received: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 65_536)
      _ = fcntl(pty.master, F_SETFL, fcntl(pty.master, F_GETFL) | O_NONBLOCK)
      while case let count = read(pty.master, &buffer, buffer.count), count > 0 { received += buffer[0..<count] }
      return received
    }

    func stop() {
      for task in tasks { task.cancel() }
      kill(caster.processIdentifier, SIGKILL)
      caster.waitForExit()
      try? FileManager.default.removeItem(at: file)
    }

    deinit { stop() }
  }

  static let station = RTCMWriter(latitude: 47.3779, longitude: 8.5427, height: 457)

  @Test(arguments: ["stream", "v2"])
  func onlyGoodFramesReachTheReceiverInOrderAndGGAGoesUp(mode: String) async throws {
    let good = Self.station.frames(secondOfWeek: 1) + Self.station.frames(secondOfWeek: 2)
    var corrupted = good[1].bytes
    corrupted[5] ^= 0x40
    // Second one: a good 1005, a corrupted MSM (and its pair); then two good frames.
    let stream = good[0].bytes + corrupted + Array("junk".utf8) + good[2].bytes + good[3].bytes
    let rig = try await Rig(mode: mode, stream: stream, ggaEvery: .seconds(1))
    defer { rig.stop() }
    var written: [UInt8] = []
    #expect(
      await eventually(every: .milliseconds(200)) {
        written += rig.written()
        return rig.client.health.forwarded >= 9 && rig.casterOutput.withLock { $0 }.contains("UP $GPGGA")
      }, "\(rig.client.health) \(rig.said.withLock { $0 }) \(rig.casterOutput.withLock { $0 })")
    written += rig.written()
    // Whole frames, each a good one, in the order sent; never the corrupted one.
    let expected = good[0].bytes + good[2].bytes + good[3].bytes
    var splitter = StreamSplitter(stages: [.rtcm3])
    var frames: [[UInt8]] = []
    written.withUnsafeBytes { raw in splitter.split(raw, text: { _ in }, frame: { frames.append($0.bytes) }) }
    #expect(!frames.isEmpty && frames.allSatisfy { [good[0].bytes, good[2].bytes, good[3].bytes].contains($0) })
    #expect(!frames.contains(corrupted))
    // In the order sent: the three follow each other somewhere (the caster sends its stream
    // again and again; in a loaded full run what the receiver got began with a later frame),
    // and a first frame not written is a loss the client counted, never a silent one.
    let flat = frames.flatMap { $0 }
    let inOrder =
      flat.count >= expected.count && (0...(flat.count - expected.count)).contains { Array(flat[$0..<$0 + expected.count]) == expected }
    #expect(inOrder, "\(frames.count) frames")
    if !flat.starts(with: expected) { #expect(rig.client.health.dropped >= 1, "the first frame not written, none counted dropped") }
    let health = rig.client.health
    #expect((health.rejects["bad checksum"] ?? 0) >= 1, "\(health)")
    #expect(health.messageTypes[1005] ?? 0 >= 2 && health.stationID == 1234, "\(health)")
    #expect(health.stationDistance.map { $0 < 1000 } == true, "\(health)")
    // The GGA that went up: the receiver's own position, checksummed.
    let up = rig.casterOutput.withLock { $0 }.split(separator: "\n").first { $0.hasPrefix("UP $GPGGA") }.map(String.init) ?? ""
    #expect(up.contains(",4722.61400,N,00832.56200,E,1,09,"), "\(up)")
    let body = up.dropFirst("UP $".count).prefix { $0 != "*" }
    #expect(up.hasSuffix(String(format: "*%02X", body.utf8.reduce(UInt8(0), ^))), "\(up)")
  }

  @Test(arguments: [
    ("garbage", "the caster's answer is not NTRIP"), ("close", "the caster closed the connection without an answer"),
    ("stall", "no corrections for 2 s: the stream stalled"),
  ])
  func aCasterThatMisbehavesIsSaidAndTriedAgain(mode: String, expected: String) async throws {
    let rig = try await Rig(mode: mode, stream: Self.station.stream(seconds: 2), stall: .seconds(2))
    defer { rig.stop() }
    let saidOnce = await rig.said.until { $0.contains { $0.contains(expected) } }
    let reconnected = await rig.casterOutput.until { $0.contains("CONNECTION 2") }
    #expect(saidOnce && reconnected, "\(rig.said.withLock { $0 }) \(rig.casterOutput.withLock { $0 })")
    // Said once, not at every attempt.
    #expect(rig.said.withLock { $0 }.filter { $0.contains(expected) }.count == 1)
  }

  /// A caster answers a mountpoint whose base is offline with its table, listing it: that is
  /// "not now", said once, and asked again until the base is back (it said "has no mountpoint
  /// 'BASE1': it has BASE1", and never asked again).
  @Test func aBaseOfflineForAWhileIsWaitedFor() async throws {
    let rig = try await Rig(mode: "offline", stream: Self.station.stream(seconds: 2), ggaEvery: .seconds(1))
    defer { rig.stop() }
    #expect(
      await eventually { rig.client.health.forwarded >= 2 },
      "\(rig.client.health) \(rig.said.withLock { $0 }) \(rig.casterOutput.withLock { $0 })")
    let offline = rig.said.withLock { $0 }.filter { $0.contains("which lists 'BASE1': its base is offline for now") }
    #expect(offline.count == 1, "\(rig.said.withLock { $0 })")
  }

  /// A sourcetable dribbled a byte every 4 s, for ever, holds the corrections back no more
  /// than the table's deadline (it held them for ever, silently).
  @Test func aSourcetableDribbledForEverDoesNotHoldTheCorrectionsBack() async throws {
    let rig = try await Rig(mode: "dribble", stream: Self.station.stream(seconds: 2))
    defer { rig.stop() }
    #expect(
      await eventually(timeout: .seconds(40)) { rig.client.health.forwarded >= 2 },
      "\(rig.client.health) \(rig.said.withLock { $0 }) \(rig.casterOutput.withLock { $0 })")
  }

  @Test func aHostThatDoesNotResolveIsSaid() async throws {
    let rig = try await Rig(mode: "stream", stream: Self.station.stream(seconds: 1), host: "no-such-caster.invalid")
    defer { rig.stop() }
    #expect(
      await rig.said.until { $0.contains { $0.contains("the host name no-such-caster.invalid does not resolve") } },
      "\(rig.said.withLock { $0 })")
  }
}
