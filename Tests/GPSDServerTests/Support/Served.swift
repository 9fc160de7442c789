import Foundation
import GPSDServer
import GPSLocation
import NMEA
import TestHelpers

/// A server in this process replaying a fixture to whoever connects, on a port of its own.
final class Served: @unchecked Sendable {
  static let fixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

  let server: GPSDServer
  let port: Int
  let capturePath: String
  private let feeding: Task<Void, Never>

  /// Serves `fixture` at `speed` times real time, starting when the first client watches
  /// (so it sees the capture from the start).
  convenience init(
    _ fixture: String, speed: Double = 10, waitForClient: Bool = true, configure: (inout GPSDServer.Configuration) -> Void = { _ in }
  ) throws {
    let path = Self.fixtures.appendingPathComponent(fixture).path
    try self.init(capture: .file(path), path: path, speed: .multiplied(by: speed), waitForClient: waitForClient, configure: configure)
  }

  init(
    capture: Capture, path: String = "", speed: ReplaySpeed, waitForClient: Bool = true,
    configure: (inout GPSDServer.Configuration) -> Void = { _ in }
  ) throws {
    capturePath = path
    let server = try GPSDServer.startedOnAFreePort(configure)
    self.server = server
    port = server.port ?? 0
    // Off the shared pool: the tests block its threads while they wait for client programs.
    feeding = Task(executorPreference: DedicatedExecutor.own()) {
      if waitForClient {
        // Until the client watches, however long a busy machine takes to get it there.
        guard await eventually(timeout: .seconds(120), { server.statistics.watchers > 0 }) else { return }
      }
      await server.feed(from: .replay(capture, speed: speed))
    }
  }

  deinit {
    feeding.cancel()
    server.stop()
  }

  /// The fixes the NMEA pipeline makes of the fixture, by time.
  var fixes: [Fix] {
    var decoder = FixDecoder()
    decoder.append((try? Data(contentsOf: URL(fileURLWithPath: capturePath))) ?? Data())
    decoder.finish()
    var fixes: [Fix] = []
    while let fix = decoder.next() { fixes.append(fix) }
    return fixes
  }

  /// The fixture's sentences, as written.
  var sentences: [String] {
    ((try? String(contentsOfFile: capturePath, encoding: .utf8)) ?? "").split(whereSeparator: \.isNewline).map(String.init)
      .filter { $0.hasPrefix("$") }
  }
}

/// Runs a program to its end (or `timeout`), giving its output (see TestHelpers' runProgram).
func runProgram(_ path: String, _ arguments: [String], timeout: TimeInterval = 20, input: String? = nil, captures: Bool = true) async throws
  -> (
    status: Int32, output: String, error: String
  )
{
  let ran = try await runProgram(
    URL(fileURLWithPath: path), arguments, input: input.map { Data($0.utf8) }, timeout: timeout, captures: captures)
  return (ran.status, ran.output, ran.error)
}

/// A gpsd client program installed here (Debian gpsd-clients, python3-gps).
enum Installed {
  static func path(_ name: String) -> String? {
    ["/usr/bin/\(name)", "/usr/local/bin/\(name)"].first { FileManager.default.isExecutableFile(atPath: $0) }
  }
  static var gpsdClients: Bool { path("gpspipe") != nil && path("gpxlogger") != nil && path("cgps") != nil }
  /// Debian's python3-gps, which /usr/bin/python3 imports.
  static var pythonGPS: Bool {
    FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gps/__init__.py")
  }
}

/// Runs `command` with `/bin/sh`, giving its status and what it printed.
func shell(_ command: String) -> (status: Int32, output: String) {
  guard let pipe = popen(command, "r") else { return (-1, "") }
  var output = Data()
  var buffer = [UInt8](repeating: 0, count: 4096)
  while true {
    let count = fread(&buffer, 1, buffer.count, pipe)
    if count == 0 { break }
    output.append(contentsOf: buffer[0..<count])
  }
  let status = pclose(pipe)
  return (status, String(decoding: output, as: UTF8.self))
}

extension GPSDServer {
  /// A server started on a free port of its own.
  static func startedOnAFreePort(_ configure: (inout Configuration) -> Void = { _ in }) throws -> GPSDServer {
    var configuration = Configuration()
    configuration.port = 0
    configure(&configuration)
    let server = GPSDServer(configuration: configuration)
    try server.start()
    return server
  }
}
