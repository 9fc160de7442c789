import Foundation
import Plumbing

/// A real gpsd fed a capture by `gpsfake`, on a port of its own.
public final class FakeGPSD: @unchecked Sendable {
  public static let gpsfake = ["/usr/bin/gpsfake", "/usr/local/bin/gpsfake"].first { FileManager.default.isExecutableFile(atPath: $0) }
  public static let gpspipe = ["/usr/bin/gpspipe", "/usr/local/bin/gpspipe"].first { FileManager.default.isExecutableFile(atPath: $0) }
  public static var isAvailable: Bool { gpsfake != nil && gpspipe != nil }

  public let port: Int
  public let process: Process

  /// Starts gpsfake playing `capture` over and over, `cycle` seconds between sentences, and
  /// waits until its gpsd accepts connections. (Played once, with `-1`, the capture could
  /// be over before a slow test connects: the readiness probe already starts playback.)
  public init(capture: String, port: Int = FakeGPSD.freePort(), cycle: Double = 0.02) throws {
    self.port = port
    process = Process()
    process.executableURL = URL(fileURLWithPath: Self.gpsfake!)
    process.arguments = ["-q", "-P", String(port), "-c", String(cycle), capture]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    // A bound, not an expectation: gpsfake is Python, and slow to start on a busy machine.
    let deadline = Date().addingTimeInterval(30)
    // Listening, and gpsfake still running: its gpsd, not another program on the port.
    if eventuallyBlocking(timeout: .seconds(30), every: .milliseconds(50), { Self.accepts(port: port) }), process.isRunning,
      attachDevice(until: deadline)
    {
      return
    }
    stop()
    throw POSIXError(.ETIMEDOUT)
  }

  /// Makes sure gpsd has gpsfake's pseudo-terminal as its device, and says whether it has.
  ///
  /// gpsfake adds the pty once, through gpsd's control socket, as soon as the socket's file
  /// exists. The file exists from gpsd's `bind`, a moment before its `listen`: on a busy
  /// machine gpsfake's connection can come in between, be refused, and gpsfake drops the
  /// device without a word. gpsd then has no receiver for as long as it runs (two tests hung
  /// on that, 2 runs in 7: one waited for a "no fix" that needs a device, one for a location
  /// after a restart). So the pty is added here as well, and gpsd is asked until it lists it.
  private func attachDevice(until deadline: Date) -> Bool {
    let control = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/gpsfake-\(process.processIdentifier).sock"
    // Asked every 100 ms, as before: each ask is a connection to gpsd and a command to gpsfake.
    return eventuallyBlocking(timeout: .seconds(max(0, deadline.timeIntervalSinceNow)), every: .milliseconds(100)) {
      guard process.isRunning, let pty = Self.pseudoTerminal(of: process.processIdentifier) else { return false }
      if Self.devices(port: port).contains(pty) { return true }
      Self.send("+\(pty)\r\n\0", toUnixSocket: control)
      return Self.devices(port: port).contains(pty)
    }
  }

  /// The pseudo-terminal (`/dev/pts/N`) process `pid` opened last: gpsfake's receiver (not a
  /// terminal it inherited as its standard input or output, nor the pty gpsfake opens first
  /// only to see whether ptys work, and leaves open).
  static func pseudoTerminal(of pid: Int32) -> String? {
    let directory = "/proc/\(pid)/fd"
    let numbers = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).compactMap(Int.init).filter { $0 > 2 }
    return numbers.sorted(by: >).lazy.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)") }
      .first { $0.hasPrefix("/dev/pts/") }
  }

  /// The paths gpsd on `port` lists in answer to `?DEVICES;` (empty when it does not answer
  /// within a second).
  static func devices(port: Int) -> [String] {
    guard let line = devicesLine(port: port) else { return [] }
    return line.components(separatedBy: #""path":""#).dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
  }

  /// gpsd on `port`'s answer to `?DEVICES;`, its DEVICES line without the line end (`nil`
  /// when it does not answer within a second).
  public static func devicesLine(port: Int) -> String? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var timeout = timeval(tv_sec: 1, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    guard connectLoopback(fd, port: port, within: timeval(tv_sec: 1, tv_usec: 0)) else { return nil }
    let request = Array("?DEVICES;\n".utf8)
    // (send, not write: a peer that has gone must not end the test run with SIGPIPE.)
    guard Glibc.send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while received.count < 65_536 {
      let count = read(fd, &buffer, buffer.count)
      guard count > 0 else { break }
      received += buffer[0..<count]
      // Complete lines only (each ends with a line feed), as bytes: "\r\n" is one Character.
      let lines = received.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
      if let line = lines.first(where: { $0.contains(#""class":"DEVICES""#) }) {
        return line.hasSuffix("\r") ? String(line.dropLast()) : line
      }
    }
    return nil
  }

  /// Sends `text` to the stream socket at `path` and waits (a second at most) for its answer.
  static func send(_ text: String, toUnixSocket path: String) {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var timeout = timeval(tv_sec: 1, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8.prefix(100)) + [0]) }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
    }
    guard connected else { return }
    let bytes = Array(text.utf8)
    guard Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { return }
    var answer = [UInt8](repeating: 0, count: 16)
    _ = read(fd, &answer, answer.count)
  }

  /// ``init(capture:port:cycle:)`` from an async test: its wait for gpsfake (seconds, on a busy
  /// machine) on a thread of its own, not the cooperative pool's.
  public static func started(capture: String, port: Int = FakeGPSD.freePort(), cycle: Double = 0.02) async throws -> FakeGPSD {
    try await blocking { try FakeGPSD(capture: capture, port: port, cycle: cycle) }
  }

  /// Kills gpsfake and the gpsd it started, found by their port (gpsfake does not always
  /// pass SIGTERM on, and its gpsd runs as another user).
  public func stop() {
    // gpsfake killed leaves its gpsd's control socket behind: it goes with it.
    defer { unlink("/tmp/gpsfake-\(process.processIdentifier).sock") }
    for signal in ["-TERM", "-KILL"] {
      Self.pkill(signal, "gpsfake .*-P \(port) ")
      Self.pkill(signal, "gpsd .*-S \(port) ")
      if eventuallyBlocking(timeout: .seconds(2), every: .milliseconds(50), { !process.isRunning && !Self.accepts(port: port) }) { return }
    }
  }

  static func pkill(_ signal: String, _ pattern: String) {
    let pkill = Process()
    pkill.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
    pkill.arguments = [signal, "-f", pattern]
    try? pkill.run()
    pkill.waitForExit()
  }

  /// Whether a gpsd on `port` accepts a connection within 200 ms. Bounded: a plain connect to
  /// a gpsd that is shutting down (its backlog full, accepting nothing) blocks for as long as
  /// the kernel retries, two minutes, and ``stop()`` would never get to its SIGKILL.
  public static func accepts(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    return connectLoopback(fd, port: port, within: timeval(tv_sec: 0, tv_usec: 200_000))
  }

  /// Connects `fd` to 127.0.0.1:`port`, giving up after `timeout` (a connect's send timeout).
  static func connectLoopback(_ fd: CInt, port: Int, within timeout: timeval) -> Bool {
    var timeout = timeout
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
  }

  /// A port nothing listens on now, below Linux's ephemeral range (32768 and up): one the
  /// kernel hands out for `port = 0` (the tests' in-process servers) or as a connection's own
  /// end can never be this one, so a gpsd restarted on it cannot find it taken by another test.
  ///
  /// Never the same port twice in one test process: two tests running side by side could
  /// otherwise both be given a port before either listens on it (a loaded run had `serve`
  /// find its port taken by another test's `systemd-socket-activate`).
  public static func freePort() -> Int {
    for _ in 0..<100 {
      let port = Int.random(in: 20_000...32_000)
      guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
      if !accepts(port: port) { return port }
    }
    return 29_470
  }

  /// The ports ``freePort()`` has handed out in this process.
  private static let handedOut = Locked(Set<Int>())

  /// `gpspipe -w` on this gpsd for `seconds`: gpsd's own view of the capture.
  /// gpspipe watching JSON for `seconds`, its output line-buffered (through coreutils'
  /// `stdbuf`): writing to a pipe, it would otherwise hold up to 4 KiB of reports in its stdio
  /// buffer, which a test that kills it (gpspipe may not heed SIGTERM while it waits on gpsd)
  /// never sees; that is how a comparison with gpsd's reports now and then came up short.
  public func pipe(seconds: Double) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
    process.arguments = ["-oL", Self.gpspipe!, "-w", "-x", String(seconds), "127.0.0.1:\(port)"]
    return process
  }
}
