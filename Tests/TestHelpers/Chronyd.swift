import Foundation

/// A real chronyd that leaves the system clock alone (`-x`), with its configuration, command
/// socket and refclock sockets in a private directory of its own, read with chronyc.
public final class Chronyd: @unchecked Sendable {
  public static let chronyd = ["/usr/sbin/chronyd", "/usr/bin/chronyd"].first { FileManager.default.isExecutableFile(atPath: $0) }
  public static let chronyc = ["/usr/bin/chronyc", "/usr/sbin/chronyc"].first { FileManager.default.isExecutableFile(atPath: $0) }
  /// chronyd must run as root here (it binds its command socket and reads SHM as root).
  public static var isAvailable: Bool { chronyd != nil && chronyc != nil && getuid() == 0 }

  /// The private directory (mode 0700, as chronyd requires for its command socket).
  public let directory: URL
  public let configuration: String
  private var process: Process?

  /// Where chronyc reaches this chronyd.
  public var commandSocket: String { directory.appendingPathComponent("chronyd.sock").path }

  /// A chronyd with `refclocks` (lines of chrony.conf) in a new private directory; not started.
  public init(refclocks: [String], directory: URL) throws {
    self.directory = directory
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    configuration = directory.appendingPathComponent("chrony.conf").path
    let lines =
      refclocks + [
        "bindcmdaddress \(directory.appendingPathComponent("chronyd.sock").path)", "cmdport 0", "port 0",
        "pidfile \(directory.appendingPathComponent("chronyd.pid").path)",
      ]
    try (lines.joined(separator: "\n") + "\n").write(toFile: configuration, atomically: true, encoding: .utf8)
  }

  /// Starts chronyd in the foreground (`-d`), without touching the clock (`-x`).
  public func start() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.chronyd!)
    process.arguments = ["-u", "root", "-x", "-d", "-f", configuration]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    self.process = process
  }

  /// Stops chronyd, as a crash would, and waits until it has gone. (SIGKILL: a chronyd
  /// started from a test inherits the test thread's blocked signals and never sees SIGTERM.
  /// It removes stale sockets itself when it starts again.)
  public func stop() {
    guard let process, process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitForExit()
    self.process = nil
  }

  deinit { stop() }

  /// One refclock as `chronyc -c sources` and `sourcestats` show it.
  public struct Source: Sendable, CustomStringConvertible {
    public var name: String
    /// The reach register: which of the last eight polls had samples.
    public var reach: Int
    /// Seconds since the last sample.
    public var lastSample: Int
    /// The last sample's measured offset, seconds (positive: this clock is ahead of the source).
    public var lastOffset: Double
    /// The offset estimated from all samples kept, seconds.
    public var estimatedOffset: Double?
    public var description: String {
      "\(name): reach \(String(reach, radix: 8)), last \(lastSample) s ago, offset \(lastOffset), estimated \(estimatedOffset.map { "\($0)" } ?? "-")"
    }
  }

  /// Returns once chronyd answers on its command socket (chronyc waits for the answer and asks
  /// again itself): its socket can be there a moment before chronyd reads it.
  public func waitUntilAnswering() async throws {
    let answer = try await runProgram(URL(fileURLWithPath: Self.chronyc!), ["-h", commandSocket, "-c", "tracking"], timeout: 30)
    if answer.status != 0 { throw Unanswered(said: answer.error) }
  }

  /// chronyd did not answer chronyc, which said why.
  public struct Unanswered: Error { public var said: String }

  /// The refclocks chronyd knows, by name (refid).
  public func sources() async throws -> [String: Source] {
    let sources = try await runProgram(URL(fileURLWithPath: Self.chronyc!), ["-h", commandSocket, "-c", "sources"], timeout: 10)
    let stats = try await runProgram(URL(fileURLWithPath: Self.chronyc!), ["-h", commandSocket, "-c", "sourcestats"], timeout: 10)
    var result: [String: Source] = [:]
    // mode,state,name,stratum,poll,reach,lastRx,adjusted offset,measured offset,error
    for line in sources.output.split(separator: "\n") {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      guard fields.count >= 10, let reach = Int(fields[5], radix: 8), let last = Int(fields[6]), let offset = Double(fields[8])
      else { continue }
      result[fields[2]] = Source(name: fields[2], reach: reach, lastSample: last, lastOffset: offset)
    }
    // name,NP,NR,span,frequency,freq skew,offset,std dev
    for line in stats.output.split(separator: "\n") {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      guard fields.count >= 8, let offset = Double(fields[6]) else { continue }
      result[fields[0]]?.estimatedOffset = offset
    }
    return result
  }
}
