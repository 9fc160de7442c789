import Foundation
import Framing
import Plumbing
import TestHelpers
import Testing

@testable import TimeService

/// `serve --chrony` against a live receiver on a pty, stamped from this machine's clock, that
/// jumps ten hours, loses its date and plays an old date: only its good time reaches chrony's
/// socket (here a stand-in that records each datagram), and each refusal is said.
@Suite(
  .serialized, .timeLimit(.minutes(3)),
  .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/socat"), "socat is not installed (Debian: socat)"))
struct WrongTimeTests {
  /// A receiver written by the test: epochs four times a second, dated by the system clock
  /// plus `shift` seconds, with `date` overriding the day (or no RMC at all when `dated` is
  /// false).
  struct Phase {
    var seconds: Double
    var shift: Int64 = 0
    var dated = true
    var date: (year: Int, month: Int, day: Int)?
  }

  /// `serve` reading `receiver` on `port`, feeding chrony's socket at `chrony`; its stderr kept.
  static func serve(_ receiver: PseudoTerminal, port: Int, chrony: String) throws -> (Process, Pipe) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Gpsbridge.executable)
    process.arguments = ["serve", "--device", receiver.link!, "--listen", "127.0.0.1:\(port)", "--chrony", chrony]
    let errors = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    return (process, errors)
  }

  static func checksum(_ body: String) -> String {
    String(format: "%02X", body.utf8.reduce(0, ^))
  }

  static func epoch(_ phase: Phase) -> String {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let instant = Int64(now.tv_sec) + phase.shift
    let centiseconds = Int(now.tv_nsec / 10_000_000)
    var calendar = gmtime_r_safe(instant)
    if let date = phase.date {
      calendar.year = date.year
      calendar.month = date.month
      calendar.day = date.day
    }
    let time = String(format: "%02d%02d%02d.%02d", calendar.hour, calendar.minute, calendar.second, centiseconds)
    let day = String(format: "%02d%02d%02d", calendar.day, calendar.month, calendar.year % 100)
    var lines = ["GPGGA,\(time),5230.0000,N,01324.0000,E,1,08,0.9,35.0,M,40.0,M,,"]
    if phase.dated { lines.append("GPRMC,\(time),A,5230.0000,N,01324.0000,E,0.0,0.0,\(day),,,A") }
    return lines.map { "$\($0)*\(checksum($0))\r\n" }.joined()
  }

  static func gmtime_r_safe(_ seconds: Int64) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
    var time = time_t(seconds)
    var broken = tm()
    gmtime_r(&time, &broken)
    return (
      Int(broken.tm_year) + 1900, Int(broken.tm_mon) + 1, Int(broken.tm_mday), Int(broken.tm_hour), Int(broken.tm_min), Int(broken.tm_sec)
    )
  }

  @Test func aJumpedOldOrUndatedTimeNeverReachesChrony() async throws {
    let directory = scratchDirectory("gpsbridge-wrong-time")
    let socketPath = directory.appendingPathComponent("chrony.sock").path
    let chrony = try StandInChronySocket(path: socketPath)
    let receiver = try PseudoTerminal(link: directory.appendingPathComponent("gps0").path)
    defer { receiver.unplug() }

    let port = FakeGPSD.freePort()
    let (process, errors) = try Self.serve(receiver, port: port, chrony: socketPath)
    #expect(await receiver.waitUntilHeld())

    // Good time, then ten hours ahead, then good time without a date, then 2024's date.
    let phases = [
      Phase(seconds: 8), Phase(seconds: 5, shift: 36_000), Phase(seconds: 3, dated: false),
      Phase(seconds: 3, date: (2024, 5, 1)),
    ]
    try await blocking {
      for phase in phases { receiver.stream(every: 0.25, for: phase.seconds) { Self.epoch(phase) } }
    }
    // What ?TIMESERVICE says now: not fed, and why.
    let answer = try await runProgram(
      URL(fileURLWithPath: "/usr/bin/socat"), ["-t", "2", "-", "TCP:127.0.0.1:\(port)"], input: Data("?TIMESERVICE;\n".utf8),
      timeout: 10
    ).output
    let said = await finish(process, reading: [errors], timeout: 0).output  // (the one pipe read)
    let samples = chrony.stop()

    let report = answer.split(whereSeparator: \.isNewline).first { $0.contains(#""class":"TIMESERVICE""#) }.map(String.init) ?? answer
    #expect(report.contains(#""feeding":false"#), "\(report)")
    #expect(report.contains("before this release of gpsbridge"), "\(report)")
    #expect(!report.contains(#""delay":-"#) && !report.contains("offset -"), "\(report)")
    #expect(samples.count >= 3, "chrony got \(samples.count) samples; gpsbridge said: \(said)")
    let wrong = samples.filter { abs($0.offset) > 1 }
    #expect(wrong.isEmpty, "fed to chrony: \(wrong.map(\.offset)); gpsbridge said: \(said)")
    // By the boot clock, within the few milliseconds the test's writes wander.
    #expect(said.contains("the receiver's time jumped by +35999.") || said.contains("the receiver's time jumped by +36000."), "\(said)")
    #expect(said.contains("the receiver says 2024-05-01; that is before this release of gpsbridge: not fed to the clock"), "\(said)")
    #expect(said.contains("chrony's socket \(socketPath): chrony takes the samples."), "\(said)")
  }

  /// The same jump against a real chronyd (it leaves the clock alone, `-x`): chrony measures
  /// the good time, and never sees the jumped one.
  @Test(.enabled(if: Chronyd.isAvailable, "chrony is not installed, or this is not root (Debian: chrony)"))
  func aRealChronydNeverSeesTheJumpedTime() async throws {
    // A directory of chronyd's own, which it makes 0700 (it refuses a command socket elsewhere).
    let directory = scratchDirectory("gpsbridge-wrong-time-chronyd").appendingPathComponent("chronyd")
    let socketPath = directory.appendingPathComponent("gps.sock").path
    let chronyd = try Chronyd(refclocks: ["refclock SOCK \(socketPath) refid GPS poll 0 noselect"], directory: directory)
    try chronyd.start()
    defer { chronyd.stop() }
    try await waitUntilExists(socketPath)
    let receiver = try PseudoTerminal(link: directory.appendingPathComponent("gps0").path)
    defer { receiver.unplug() }
    let server = try Gpsbridge.start([
      "serve", "--device", receiver.link!, "--listen", "127.0.0.1:\(FakeGPSD.freePort())", "--chrony", socketPath,
    ])
    defer { server.terminate() }
    #expect(await receiver.waitUntilHeld())
    var offsets: [Double] = []
    for phase in [Phase(seconds: 8), Phase(seconds: 8, shift: 36_000)] {
      try await blocking { receiver.stream(every: 0.25, for: phase.seconds) { Self.epoch(phase) } }
      if let offset = try await chronyd.sources()["GPS"]?.lastOffset { offsets.append(offset) }
    }
    // chrony's last sample after each phase: the good time's, both times (its clock and the
    // receiver's are this machine's, so near zero), never ten hours.
    let sources = try await chronyd.sources()
    #expect(offsets.count == 2, "chronyd's sources: \(sources)")
    #expect(offsets.allSatisfy { abs($0) < 1 }, "\(offsets)")
  }

  /// A u-blox that says it is spoofed (`NAV-STATUS`, beside its NMEA): from that epoch on,
  /// nothing reaches chrony's socket, and why is said on stderr and in `?TIMESERVICE`.
  @Test func aSpoofedReceiversTimeNeverReachesChrony() async throws {
    let directory = scratchDirectory("gpsbridge-spoofed-time")
    let socketPath = directory.appendingPathComponent("chrony.sock").path
    let chrony = try StandInChronySocket(path: socketPath)
    let receiver = try PseudoTerminal(link: directory.appendingPathComponent("gps0").path)
    defer { receiver.unplug() }
    let port = FakeGPSD.freePort()
    let (process, errors) = try Self.serve(receiver, port: port, chrony: socketPath)
    #expect(await receiver.waitUntilHeld())

    // Good time, then NAV-STATUS with spoofing indicated (flags2's spoofDetState 2), then the
    // same good-looking time: what a spoofer's receiver sends.
    var spoofing = [UInt8](repeating: 0, count: 16)
    spoofing[7] = 2 << 3
    let lastGood = Locked(0.0)
    try await blocking {
      receiver.stream(every: 0.25, for: 6) {
        Self.epoch(Phase(seconds: 0))
      } after: {
        lastGood.withLock { $0 = Date().timeIntervalSince1970 }
      }
      receiver.write(UBXFrame(messageClass: 0x01, id: 0x03, payload: spoofing).bytes)
      receiver.stream(every: 0.25, for: 4) { Self.epoch(Phase(seconds: 0)) }
    }
    let answer = try await runProgram(
      URL(fileURLWithPath: "/usr/bin/socat"), ["-t", "2", "-", "TCP:127.0.0.1:\(port)"], input: Data("?TIMESERVICE;\n".utf8),
      timeout: 10
    ).output
    let said = await finish(process, reading: [errors], timeout: 0).output  // (the one pipe read)
    let samples = chrony.stop()

    // A sample's receiver time is its arrival less its offset; the spoofed epochs' are all
    // after the last good epoch was written (a quarter of a second later).
    let good = lastGood.withLock { $0 }
    #expect(samples.count >= 3, "chrony got \(samples.count) samples; gpsbridge said: \(said)")
    let spoofed = samples.filter { $0.system + $0.offset > good + 0.005 }
    #expect(spoofed.isEmpty, "fed while spoofed: \(spoofed.map { $0.system + $0.offset - good }) s after the last good epoch")
    #expect(
      said.contains(
        "the receiver says its signals are spoofed (spoofing indicated, by NAV-STATUS): not fed to the clock until its signals have been clean for 60 s."
      ), "\(said)")
    let report = answer.split(whereSeparator: \.isNewline).first { $0.contains(#""class":"TIMESERVICE""#) }.map(String.init) ?? answer
    #expect(report.contains(#""feeding":false"#) && report.contains("its signals are spoofed"), "\(report)")
  }

  @Test func aMissingChronySocketIsSaidAtOnceAndWhenItAppears() async throws {
    let directory = scratchDirectory("gpsbridge-missing-chrony")
    let socketPath = directory.appendingPathComponent("chrony.sock").path
    let receiver = try PseudoTerminal(link: directory.appendingPathComponent("gps0").path)
    defer { receiver.unplug() }
    let (process, errors) = try Self.serve(receiver, port: FakeGPSD.freePort(), chrony: socketPath)
    #expect(await receiver.waitUntilHeld())
    var chrony: StandInChronySocket?
    try await blocking {
      let end = Date().addingTimeInterval(10)
      receiver.stream(every: 0.25, for: 10) {
        Self.epoch(Phase(seconds: 0))
      } after: {
        // chrony comes after 5 s.
        if chrony == nil, Date() > end.addingTimeInterval(-5) { chrony = try? StandInChronySocket(path: socketPath) }
      }
    }
    let said = await finish(process, reading: [errors], timeout: 0).output  // (the one pipe read)
    let samples = chrony?.stop() ?? []
    #expect(
      said.contains("chrony's socket \(socketPath): no such socket: chrony is not running, or its chrony.conf has no 'refclock SOCK' line"),
      "\(said)")
    #expect(said.contains("chrony's socket \(socketPath): chrony takes the samples."), "\(said)")
    #expect(!samples.isEmpty, "\(said)")
  }

  @Test func aChronyPathTooLongForASocketIsAUsageError() async throws {
    let path = "/run/" + String(repeating: "x", count: 120) + ".sock"
    let result = try await runProgram(URL(fileURLWithPath: Gpsbridge.executable), ["serve", "--device", "/dev/null", "--chrony", path])
    #expect(result.status == 64)
    #expect(result.error.contains("--chrony names a socket of at most 107 bytes"), "\(result.error)")
  }
}

/// A stand-in for chronyd's SOCK refclock: a datagram socket at `path` that records every
/// sample sent to it, read on a thread of its own.
final class StandInChronySocket: @unchecked Sendable {
  struct Sample {
    var system: Double
    var offset: Double
  }

  private let descriptor: CInt
  private let path: String
  private let samples = NSLock()
  private var received: [Sample] = []
  private var stopped = false
  private let done = DispatchSemaphore(value: 0)

  init(path: String) throws {
    self.path = path
    descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      let bytes = Array(path.utf8)
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    Thread.detachNewThread { [self] in
      var buffer = [UInt8](repeating: 0, count: 64)
      while samples.withLock({ !stopped }) {
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count == 40 else { continue }
        let fields = buffer.withUnsafeBytes { raw in
          (
            raw.load(fromByteOffset: 0, as: Int64.self), raw.load(fromByteOffset: 8, as: Int64.self),
            raw.load(fromByteOffset: 16, as: Double.self)
          )
        }
        samples.withLock { received.append(Sample(system: Double(fields.0) + Double(fields.1) / 1e6, offset: fields.2)) }
      }
      done.signal()
    }
  }

  /// How many samples have arrived so far.
  var count: Int { samples.withLock { received.count } }

  /// Stops reading, removes the socket, and gives every sample received.
  func stop() -> [Sample] {
    samples.withLock { stopped = true }
    done.wait()
    close(descriptor)
    unlink(path)
    return samples.withLock { received }
  }
}

/// The NTP shared-memory units 0 and 1 feed the clock of anyone who can write them: they are
/// private, and one that another program left writable by others is refused. (Under a key of
/// the test's own: a gpsd that ran here, gpsfake's included, leaves the real units 0 to 7.)
struct PrivateSharedMemoryTests {
  @Test(arguments: [0, 1])
  func aPrivateUnitThatOthersMayWriteIsRefused(unit: Int) throws {
    let key = key_t(Int32.random(in: 0x5000_0000...0x5FFF_FFFF))
    let id = shmget(key, 96, IPC_CREAT | IPC_EXCL | 0o666)
    try #require(id >= 0)
    defer { shmctl(id, IPC_RMID, nil) }
    #expect(throws: NTPSharedMemory.Failure.writableByOthers(mode: 0o666)) { try NTPSharedMemory(unit: unit, key: key) }
    let message = ClockFeed.explain(.writableByOthers(mode: 0o666), unit: unit)
    #expect(message.hasPrefix("NTP shared-memory unit \(unit) (key 0x4e54503\(unit)) is writable by other users (mode 0666)"))
  }

  @Test func aPublicUnitMayBeWritableByOthers() throws {
    let key = key_t(Int32.random(in: 0x5000_0000...0x5FFF_FFFF))
    let memory = try NTPSharedMemory(unit: 2, key: key)
    defer { shmctl(shmget(key, 0, 0), IPC_RMID, nil) }
    #expect(memory.unit == 2)
  }
}
