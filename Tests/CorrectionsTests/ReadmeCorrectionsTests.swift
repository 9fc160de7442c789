import Foundation
import TestHelpers
import Testing

/// The documentation's "Corrections (RTK)": its try-it lines run as written (on free ports, in a
/// scratch directory) reach RTK fixed, and `gpsbridge ntrip` lists str2str's mountpoint.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ReadmeCorrectionsTests {
  static func section() throws -> String {
    try Documentation.section("Corrections (RTK)")
  }

  @Test(.enabled(if: Caster.str2str != nil, "str2str is not installed (Debian: rtklib)"))
  func theTryItLinesReachRTKFixed() async throws {
    let directory = URL(fileURLWithPath: "/tmp/rtk-readme-\(getpid())-\(Int.random(in: 0..<100_000))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let lines = try Self.section().split(separator: "\n").map(String.init).filter {
      $0.hasPrefix("gpsbridge simulate --rtcm --pty") || $0.hasPrefix("gpsbridge simulate --pty /tmp/rover0")
    }
    #expect(lines.count == 2)
    let (casterPort, gpsdPort) = (FakeGPSD.freePort(), FakeGPSD.freePort())
    let script = lines.map { line in
      line.replacingOccurrences(of: "/tmp/base0", with: directory.path + "/base0")
        .replacingOccurrences(of: "/tmp/rover0", with: directory.path + "/rover0")
        .replacingOccurrences(of: ":2102", with: ":\(casterPort)").replacingOccurrences(of: ":2948", with: ":\(gpsdPort)")
    }.joined(separator: "\n")
    // A session of its own, so the whole group (simulators, str2str, serve) is stopped at the end.
    let shell = try ShellScript(script, in: directory)
    defer { shell.stop() }
    let text = { shell.said }
    #expect(
      await shell.until(timeout: .seconds(90)) { text().contains("the fix went from RTK float to RTK fixed.") },
      "\(script)\n\(text())")
  }

  @Test(.enabled(if: Caster.str2str != nil, "str2str is not installed (Debian: rtklib)"))
  func theNtripCommandListsTheCastersMountpoints() async throws {
    let port = FakeGPSD.freePort()
    let caster = Process()
    caster.executableURL = URL(fileURLWithPath: Caster.str2str!)
    // RTKLIB's caster takes the sourcetable entry after the mountpoint.
    caster.arguments = [
      "-out", "ntripc://:\(port)/BASE1:Zurich;RTCM 3.2;1005(1),1074(1);2;GPS;;CHE;47.38;8.54;1;0;gpsbridge;none;N;N;960;",
    ]
    caster.standardOutput = FileHandle.nullDevice
    caster.standardError = FileHandle.nullDevice
    try caster.run()
    defer {
      kill(caster.processIdentifier, SIGKILL)
      caster.waitForExit()
    }
    // The caster listening before it is asked (its sourcetable is there from the start).
    try await offThePool { waitUntilListening(port: port) }
    let result = try await runProgram(URL(fileURLWithPath: Gpsbridge.executable), ["ntrip", "127.0.0.1:\(port)", "--near", "47.37,8.55"])
    #expect(result.status == 0, "\(result.error)")
    #expect(result.output.contains("BASE1 (Zurich): RTCM 3.2, GPS, 1 km away; wants your position (GGA)"), "\(result.output)")
    #expect(result.output.contains("messages 1005(1),1074(1)"), "\(result.output)")
    let missing = try await runProgram(URL(fileURLWithPath: Gpsbridge.executable), ["ntrip", "127.0.0.1:\(FakeGPSD.freePort())"])
    #expect(missing.status == 1 && missing.error.hasPrefix("Error: cannot connect to 127.0.0.1:"), "\(missing.error)")
  }
}
