import Foundation
import TestHelpers
import Testing
import Transports

@testable import gpsbridge

/// The status line as a person sees it: the program's stdout is a terminal (a pseudo-terminal
/// whose other side the test reads), and through the demo drive's tunnel the status line says
/// the fix is lost, and for how long, at the receiver's own epoch rate.
@Suite struct StatusLineTests {
  /// Every status line drawn in `output`: the reverse-video text after each `\r\e[K\e[7m`.
  static func statusLines(_ output: String) -> [String] {
    output.components(separatedBy: "\u{1B}[7m").dropFirst().compactMap { $0.components(separatedBy: "\u{1B}[0m").first }
      .map { $0.trimmingCharacters(in: .whitespaces) }
  }

  /// The line follows the session the manager keeps and starts none itself: a line that
  /// started the device before the manager listened let a device failing at once (not a serial
  /// device) say so to nobody, and the run waited for ever (1 to 5 runs in 240 on a terminal).
  @Test func theStatusLineStartsNoSession() {
    let receiver = Receiver(ReplaySource(capture: .bytes([], name: "nothing"), speed: .max, clock: ContinuousClock()))
    let line = StatusLine(sourceName: "nothing", receiver: receiver, draws: false)
    #expect(!receiver.hasOpenSession)
    _ = line
  }

  @Test(.timeLimit(.minutes(2))) func losingTheFixShowsAtOnceAndForHowLong() async throws {
    let drive = FileManager.default.temporaryDirectory.appendingPathComponent("status-\(UUID().uuidString).nmea").path
    defer { unlink(drive) }
    #expect(try await Program.run(["simulate", "--output", drive]).status == 0)
    let terminal = try PseudoTerminal()
    defer { terminal.unplug() }
    let process = Process()
    process.executableURL = Program.executable
    process.arguments = ["--replay", drive, "--speed", "max"]
    process.standardOutput = FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
    process.standardError = FileHandle.nullDevice
    try process.run()
    // The terminal's other side, read until the program ends.
    let master = terminal.master
    let output = await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while process.isRunning || bytes.isEmpty {
          var entry = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
          guard poll(&entry, 1, 100) > 0 else { continue }
          let count = read(master, &buffer, buffer.count)
          if count > 0 { bytes += buffer[0..<count] }
        }
        // What is still in the terminal after the exit.
        var entry = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        while poll(&entry, 1, 200) > 0 {
          let count = read(master, &buffer, buffer.count)
          guard count > 0 else { break }
          bytes += buffer[0..<count]
        }
        continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
      }
    }
    // Each status line without the source's name (a temporary path may hold any letters).
    let lines = Self.statusLines(output).map { $0.components(separatedBy: " │ ").dropFirst().joined(separator: " │ ") }
    let lost = lines.filter { $0.contains("no fix") }
    // The tunnel: 20 s of epochs without a position, each counted on the receiver's clock.
    #expect(lost.contains { $0.contains("no fix for 19 s") }, "\(Set(lost).sorted())")
    // Never a fix's quality or satellites while it is lost, and the receiver's 1 Hz throughout.
    #expect(lost.allSatisfy { !$0.contains("3D") && !$0.contains("satellites") && $0.contains("1.0 Hz") }, "\(Set(lost).sorted())")
    // The first epoch without a position says so at once.
    let firstLost = try #require(lines.firstIndex { $0.contains("no fix") })
    #expect(lines[firstLost] == "no fix │ 1.0 Hz", "\(lines[firstLost])")
    #expect(lines.contains("3D GPS │ 13 satellites │ 1.0 Hz"), "\(Set(lines).sorted().prefix(5))")
  }
}
