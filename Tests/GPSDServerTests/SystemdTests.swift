import Foundation
import Plumbing
import TestHelpers
import Testing

/// systemd's ways of starting `serve`, with systemd's own tools: socket activation, readiness
/// and watchdog notifications, and the unit files in the repository.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct SystemdTests {
  static let capture = Served.fixtures.appendingPathComponent("sirf-nmea22-1hz.nmea").path

  /// A temporary path for a socket.
  static func socketPath(_ name: String) -> String {
    NSTemporaryDirectory() + "gpsbridge-\(name)-\(getpid())-\(Int.random(in: 0..<1_000_000)).sock"
  }

  @Test(
    .enabled(
      if: Installed.path("systemd-socket-activate") != nil && Installed.path("gpspipe") != nil && Installed.path("socat") != nil,
      "systemd-socket-activate, gpspipe or socat is not installed (Debian: systemd gpsd-clients socat)"))
  func socketActivationServesOnTheSocketsHandedOver() async throws {
    let port = FakeGPSD.freePort()
    let control = Self.socketPath("control")
    defer { unlink(control) }
    // As Debian's gpsd.socket hands gpsd its control socket and its TCP port. Started by the
    // shell, in the background: a systemd-socket-activate started with Foundation's
    // Process (it execs the program) kept gpspipe below from being seen to end until it did.
    let started = shell(
      "\(Installed.path("systemd-socket-activate")!) -l \(control) -l 127.0.0.1:\(port) \(Gpsbridge.executable) serve --replay \(Self.capture) </dev/null >/dev/null 2>&1 &"
    )
    try #require(started.status == 0)
    defer { _ = shell("pkill -f 'serve --replay \(Self.capture)$' ; pkill -f 'systemd-socket-activate -l \(control)'") }
    try await waitUntilExists(control)
    // The control socket (gpsdctl's) is answered, and takes no devices. (The first connection
    // starts the program: socat waits up to 30 s for its answer, which closes the connection.
    // With 2 s a loaded machine's start-up was late, and the answer empty.)
    let answer = shell("printf '+/dev/ttyUSB9\\r\\n' | socat -t 30 - UNIX-CONNECT:\(control)")
    #expect(answer.output.hasPrefix("ERROR"), "\(answer)")
    let result = try await runProgram(Installed.path("gpspipe")!, ["-w", "-n", "6", "127.0.0.1:\(port)"], timeout: 20)
    #expect(result.output.contains(#""class":"TPV""#), "\(result.output) \(result.error)")
    #expect(result.output.contains(#""rev":"gpsbridge "#), "\(result.output)")
  }

  /// With socket activation the sockets systemd hands over are where `serve` listens: a
  /// `--gpsd` at one of them would read its own output, and is refused at start.
  @Test(
    .enabled(
      if: Installed.path("systemd-socket-activate") != nil, "systemd-socket-activate is not installed (Debian: systemd)"))
  func aGPSDAtAHandedOverSocketIsRefused() async throws {
    let port = FakeGPSD.freePort()
    let errors = Self.socketPath("errors") + ".txt"
    defer { unlink(errors) }
    _ = FileManager.default.createFile(atPath: errors, contents: nil)
    let written = FileChanges([URL(fileURLWithPath: errors)])
    let started = shell(
      "\(Installed.path("systemd-socket-activate")!) -l 127.0.0.1:\(port) \(Gpsbridge.executable) serve --gpsd 127.0.0.1:\(port) --listen 127.0.0.1:\(FakeGPSD.freePort()) </dev/null >/dev/null 2>\(errors) &"
    )
    try #require(started.status == 0)
    defer { _ = shell("pkill -f 'systemd-socket-activate -l 127.0.0.1:\(port) '") }
    // The first connection, once systemd-socket-activate listens, starts it.
    let said = { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }
    #expect(await written.until { said().contains("Listening on 127.0.0.1:\(port)") }, "\(said())")
    #expect(FakeGPSD.accepts(port: port))
    #expect(await written.until { said().contains("Error: --gpsd 127.0.0.1:\(port) is where this server listens itself") }, "\(said())")
  }

  /// A `Type=notify` service's messages, caught on a datagram socket standing in for systemd's.
  @Test func readinessWatchdogAndStoppingAreNotified() async throws {
    let path = Self.socketPath("notify")
    let listener = try NotifyListener(path: path)

    let server = Process()
    server.executableURL = URL(fileURLWithPath: Gpsbridge.executable)
    server.arguments = ["serve", "--replay", Self.capture, "--listen", "127.0.0.1:\(FakeGPSD.freePort())"]
    var environment = ProcessInfo.processInfo.environment
    environment["NOTIFY_SOCKET"] = path
    environment["WATCHDOG_USEC"] = "400000"
    server.environment = environment
    server.standardError = FileHandle.nullDevice
    try server.run()

    // Waiting on the listener blocks, so on a thread of its own, off the test runner's pool.
    let messages = try await offThePool {
      var messages: [String] = []
      func receive(until wanted: String) {
        for _ in 0..<200 where !messages.contains(wanted) {
          if let message = listener.receive(milliseconds: 100) { messages.append(message) }
        }
      }
      receive(until: "READY=1")
      receive(until: "WATCHDOG=1")
      server.terminate()
      receive(until: "STOPPING=1")
      server.waitForExit()
      return messages
    }
    #expect(messages.first == "READY=1", "\(messages)")
    #expect(messages.contains("WATCHDOG=1"), "\(messages)")
    #expect(messages.last == "STOPPING=1", "\(messages)")
  }

  /// The unit files in the repository, as `systemd-analyze verify` reads them (with the built
  /// program in place of the installed one, which it checks exists).
  @Test(.enabled(if: Installed.path("systemd-analyze") != nil))
  func theUnitFilesVerifyClean() throws {
    let units = Served.fixtures.deletingLastPathComponent().appendingPathComponent("Scripts/systemd")
    let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("gpsbridge-units-\(getpid())")
    try? FileManager.default.removeItem(at: directory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let names = ["gpsbridge.service", "gpsbridge.socket", "gpsbridge-time.service", "gpsbridge-time.timer"]
    for name in names {
      let text = try String(contentsOf: units.appendingPathComponent(name), encoding: .utf8)
      try text.replacingOccurrences(of: "/usr/local/bin/gpsbridge", with: Gpsbridge.executable)
        .write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    // (`--man=no`: the pages the units name are installed by the package, not here.)
    let result = shell("cd \(directory.path) && systemd-analyze verify --man=no \(names.map { "./" + $0 }.joined(separator: " ")) 2>&1")
    #expect(result.status == 0 && result.output.isEmpty, "\(result.output)")
  }
}

/// The README's "Replacing gpsd" on a real systemd: a test of its own, with more time than
/// the others, since it starts a whole service manager.
@Suite(.timeLimit(.minutes(5)))
struct ReplacingGPSDTests {
  /// Whether this machine lets the tests make mount and network namespaces (root, and a
  /// container that allows it).
  static let canSandbox: Bool = {
    guard getuid() == 0, let unshare = Installed.path("unshare") else { return false }
    return shell("\(unshare) --mount --net true 2>/dev/null").status == 0
  }()

  /// The README's "Replacing gpsd" section, its commands run as written on a real systemd in a
  /// sandbox (see `Support/replacing-gpsd.sh`): Debian's gpsd.socket holding the port is named
  /// by `serve` and stopped by the README's command, the units installed by its commands start
  /// `serve` on a client's connection as user gpsbridge with READY=1, the README's options line
  /// serves two receivers, `--regions` keeps its regions' states in the unit's StateDirectory=
  /// across `systemctl restart` (the region is not said again), and listening beyond loopback
  /// warns.
  @Test(
    .enabled(
      if: ReplacingGPSDTests.canSandbox && FileManager.default.fileExists(atPath: "/lib/systemd/systemd")
        && FileManager.default.fileExists(atPath: "/lib/systemd/system/gpsd.socket") && Installed.path("gpspipe") != nil,
      "needs root allowed to make mount and network namespaces, systemd and Debian's gpsd (Debian: systemd gpsd gpsd-clients util-linux)"))
  func theReadmesReplacingGPSDSectionWorksAsWritten() async throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Support/replacing-gpsd.sh")
    let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("gpsbridge-replacing-gpsd-\(getpid())")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    // Every step of the script has its own bound; this one stops it (its cleanup still runs)
    // if a machine is slow beyond all of them.
    let result = try await runProgram(
      URL(fileURLWithPath: "/usr/bin/timeout"),
      [
        "-s", "INT", "200", Installed.path("unshare")!, "--mount", "--net", "--propagation", "private", "sh", script.path,
        Gpsbridge.executable, try Documentation.file(holding: "Replacing gpsd").path, scratch.path,
      ], timeout: 230)
    #expect(result.status == 0 && result.output.hasSuffix("OK\n"), "\(result.output)\n\(result.error)")
    #expect(result.output.contains("served as user gpsbridge"), "\(result.output)")
  }
}
