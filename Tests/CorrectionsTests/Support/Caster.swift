import Foundation
import NMEASimulation
import Plumbing
import TestHelpers

/// RTKLIB's `str2str` as a real NTRIP caster on loopback (`ntripc://user:secret@:PORT/BASE1`),
/// fed a simulated reference station's RTCM 3 at 1 Hz through its TCP input.
final class Caster: @unchecked Sendable {
  static let str2str = installed("str2str")
  let port: Int
  let inputPort: Int
  private var process: Process?
  private let feeding = Locked(true)
  private var feeder: Thread?

  init(port: Int = FakeGPSD.freePort(), inputPort: Int = FakeGPSD.freePort()) {
    self.port = port
    self.inputPort = inputPort
  }

  /// Starts the caster and a station feeding it.
  func start() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.str2str!)
    process.arguments = ["-in", "tcpsvr://:\(inputPort)", "-out", "ntripc://user:secret@:\(port)/BASE1"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    self.process = process
    feeding.withLock { $0 = true }
    let (feeding, inputPort) = (self.feeding, self.inputPort)
    let station = RTCMWriter(latitude: 47.3779, longitude: 8.5427, height: 457)
    let thread = Thread {
      var second = 0
      var socket: FileDescriptor?
      while feeding.withLock({ $0 }) {
        if socket == nil { socket = try? FileDescriptor.connectTCP(host: "127.0.0.1", port: inputPort) }
        if let connected = socket {
          let bytes = station.frames(secondOfWeek: second).flatMap(\.bytes)
          let sent = bytes.withUnsafeBytes { raw in (try? Result { () throws(Errno) in try connected.sendSome(raw) }.get()) ?? -1 }
          if sent < 0 {
            try? connected.close()
            socket = nil
          }
        }
        second += 1
        Thread.sleep(forTimeInterval: socket == nil ? 0.1 : 1)
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
    process.waitUntilExit()
    self.process = nil
  }

  deinit { stop() }
}
