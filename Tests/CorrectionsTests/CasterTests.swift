import Foundation
import TestHelpers
import Testing

/// A simulated RTK rover on a pty, `serve --ntrip` and RTKLIB's str2str as the caster: the
/// rover reaches RTK fixed on the corrections, falls back when the caster stops, and comes
/// back when it restarts; a wrong password or mountpoint is a clear stop.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct CasterTests {
  static func fixQuality(_ port: Int) async -> String? {
    guard let body = await fetch("/status.json", port: port),
      let status = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
      let receiver = (status["receivers"] as? [[String: Any]])?.first, let fix = receiver["fix"] as? [String: Any]
    else { return nil }
    return fix["quality"] as? String
  }

  @Test(.enabled(if: Caster.str2str != nil, "str2str is not installed (Debian: rtklib)"))
  func theRoverReachesRTKFixedFallsBackAndComesBack() async throws {
    let directory = scratchDirectory("caster-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let caster = Caster()
    try caster.start()
    defer { caster.stop() }
    let link = directory.appendingPathComponent("rover0").path
    let rover = try RunningProgram(["simulate", "--pty", link, "--live", "--profile", "rtk", "--rate", "1"], in: directory)
    defer { rover.stop() }
    try await waitUntilExists(link)
    let httpPort = FakeGPSD.freePort()
    let serve = try RunningProgram(
      [
        "serve", "--device", link, "--listen", "127.0.0.1:\(FakeGPSD.freePort())", "--http", "\(httpPort)",
        "--ntrip", "ntrip://user:secret@127.0.0.1:\(caster.port)/BASE1",
      ], in: directory)
    defer { serve.stop() }
    var quality: String?
    #expect(
      await eventually(timeout: .seconds(90), every: .milliseconds(500)) {
        quality = await Self.fixQuality(httpPort)
        return quality == "RTK fixed"
      }, "the fix is \(quality ?? "none"); serve said: \(serve.said)")
    #expect(!serve.said.contains("user:secret") && !serve.said.contains("secret"), "\(serve.said)")
    // The fix's moves are said; the stream's health is on the page and in the metrics.
    #expect(serve.said.contains("the fix went from DGPS to RTK float."), "\(serve.said)")
    #expect(serve.said.contains("the fix went from RTK float to RTK fixed."), "\(serve.said)")
    let metrics = await fetch("/metrics", port: httpPort) ?? ""
    #expect(metrics.contains(#"gpsbridge_corrections_connected{device="\#(link)"} 1"#), "\(metrics)")
    #expect(metrics.contains(#"gpsbridge_corrections_messages_total{device="\#(link)",type="1005"} "#), "\(metrics)")
    let page = await fetch("/status.json", port: httpPort) ?? ""
    #expect(page.contains(#""source":"ntrip://127.0.0.1:\#(caster.port)/BASE1""#) && !page.contains("secret"), "\(page)")

    // The caster goes: the corrections age out, the fix falls back, and that is said.
    caster.stop()
    #expect(
      await eventually(timeout: .seconds(60), every: .milliseconds(500)) {
        quality = await Self.fixQuality(httpPort)
        return quality == "GPS"
      }, "the fix is \(quality ?? "none"); serve said: \(serve.said)")
    #expect(serve.said.contains("gpsbridge: corrections from ntrip://127.0.0.1:\(caster.port)/BASE1:"), "\(serve.said)")

    // It comes back: so do the corrections, and RTK fixed.
    try caster.start()
    #expect(
      await eventually(timeout: .seconds(120), every: .milliseconds(500)) {
        quality = await Self.fixQuality(httpPort)
        return quality == "RTK fixed"
      }, "the fix is \(quality ?? "none"); serve said: \(serve.said)")
  }

  @Test(.enabled(if: Caster.str2str != nil, "str2str is not installed (Debian: rtklib)"))
  func aWrongPasswordOrMountpointIsAClearStop() async throws {
    let directory = scratchDirectory("caster-refused-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let caster = Caster()
    try caster.start()
    defer { caster.stop() }
    let link = directory.appendingPathComponent("rover0").path
    let rover = try RunningProgram(["simulate", "--pty", link, "--live", "--profile", "rtk", "--rate", "1"], in: directory)
    defer { rover.stop() }
    try await waitUntilExists(link)
    let cases = [
      (
        "ntrip://user:wrong@127.0.0.1:\(caster.port)/BASE1", "Error: corrections: the caster 127.0.0.1 refused the user and password (401)."
      ),
      (
        "ntrip://user:secret@127.0.0.1:\(caster.port)/NOPE",
        "Error: corrections: the caster 127.0.0.1 has no mountpoint 'NOPE': it has BASE1."
      ),
    ]
    for (url, expected) in cases {
      let serve = try RunningProgram(
        ["serve", "--device", link, "--listen", "127.0.0.1:\(FakeGPSD.freePort())", "--ntrip", url], in: directory)
      #expect(await eventually(timeout: .seconds(30)) { serve.said.contains(expected) }, "\(url): \(serve.said)")
      #expect(!serve.said.contains("wrong") && !serve.said.contains("secret"), "\(serve.said)")
      // The receiver is still served: only the corrections stopped.
      #expect(serve.process.isRunning)
      serve.stop()
    }
  }
}
