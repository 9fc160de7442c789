import Foundation
import NMEASimulation
import Plumbing
import TestHelpers

/// RTKLIB's `str2str` as a real NTRIP caster on loopback (`ntripc://user:secret@:PORT/BASE1`),
/// fed a simulated reference station's RTCM 3 at 1 Hz through its TCP input. What its clients
/// send up (a rover's GGA) str2str relays back to that input (`-b 1`), where ``upstream``
/// keeps it. With `wantsGGA` the mountpoint's sourcetable entry asks for it (`nmea=1`), as a
/// VRS caster's does.
final class Caster: @unchecked Sendable {
  static let str2str = installed("str2str")
  let port: Int
  let inputPort: Int
  let wantsGGA: Bool
  private var process: Process?
  private let feeding = Locked(true)
  private let received = Watched<[UInt8]>([])
  private var feeder: Thread?

  init(port: Int = FakeGPSD.freePort(), inputPort: Int = FakeGPSD.freePort(), wantsGGA: Bool = false) {
    self.port = port
    self.inputPort = inputPort
    self.wantsGGA = wantsGGA
  }

  /// The lines the caster's clients sent up, as str2str relayed them.
  var upstream: [String] {
    String(decoding: received.value, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
  }

  /// Waits until `condition` holds, looking again at each line sent up.
  func until(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    await received.until(timeout: timeout) { _ in condition() }
  }

  /// Starts the caster and a station feeding it.
  func start() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.str2str!)
    // RTKLIB's caster takes the mountpoint's sourcetable entry after its name; the 1 after the
    // longitude is `nmea`.
    let entry = wantsGGA ? ":Zurich;RTCM 3.2;1005(1),1074(1);2;GPS;;CHE;47.38;8.54;1;0;gpsbridge;none;B;N;960;" : ""
    process.arguments = ["-in", "tcpsvr://:\(inputPort)", "-out", "ntripc://user:secret@:\(port)/BASE1\(entry)", "-b", "1"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    self.process = process
    feeding.withLock { $0 = true }
    let (feeding, inputPort, received) = (self.feeding, self.inputPort, self.received)
    let station = RTCMWriter(latitude: 47.3779, longitude: 8.5427, height: 457)
    let thread = Thread {
      var second = 0
      var socket: FileDescriptor?
      while feeding.withLock({ $0 }) {
        // Connected once str2str's input accepts (at its start, and again after a restart).
        if socket == nil {
          _ = eventuallyBlocking(every: .milliseconds(100)) {
            socket = try? FileDescriptor.connectTCP(host: "127.0.0.1", port: inputPort)
            return socket != nil || !feeding.withLock { $0 }
          }
        }
        if let connected = socket {
          let bytes = station.frames(secondOfWeek: second).flatMap(\.bytes)
          let sent = bytes.withUnsafeBytes { raw in (try? Result { () throws(Errno) in try connected.sendSome(raw) }.get()) ?? -1 }
          if sent < 0 {
            try? connected.close()
            socket = nil
          }
        }
        second += 1
        guard let connected = socket else { continue }
        // A second's wait, taking what comes back meanwhile.
        let end = Date().addingTimeInterval(1)
        while Date() < end {
          var descriptor = pollfd(fd: connected.rawValue, events: Int16(POLLIN), revents: 0)
          guard poll(&descriptor, 1, Int32(max(1, end.timeIntervalSinceNow * 1000))) > 0 else { continue }
          var buffer = [UInt8](repeating: 0, count: 4096)
          // Closed by the caster (stopped): connected again once it is back.
          guard let count = try? connected.read(into: &buffer), count > 0 else {
            try? connected.close()
            socket = nil
            break
          }
          received.withLock { $0 += buffer[0..<count] }
        }
      }
      try? socket?.close()
    }
    thread.start()
    feeder = thread
  }

  /// Stops the caster (as a crash would) and its station.
  func stop() {
    feeding.withLock { $0 = false }
    guard let process, process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitForExit()
    self.process = nil
  }

  deinit { stop() }
}

/// A simulated RTK rover (the `rtk` profile, 1 Hz) on a pty at `link`, started as the built
/// program and there once its link is.
func startRover(at link: String, in directory: URL) async throws -> RunningProgram {
  let rover = try RunningProgram(["simulate", "--pty", link, "--live", "--profile", "rtk", "--rate", "1"], in: directory)
  try await waitUntilExists(link)
  return rover
}
