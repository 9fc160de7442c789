import Foundation
import TestHelpers
import Testing

/// The issue's whole chain, with the built program and real peers: a simulated u-blox spoofed
/// 12 s into its drive (`simulate --live --spoof 12`), served by `serve` with chrony's socket,
/// the shared memory (a real `chronyd -x` reads both), the status page and its metrics. From
/// the epoch it says so, chrony gets no sample on either refclock; gpsd's clients that ask
/// get INTEGRITY; `/metrics` says the state and that the time is held; the page shows the
/// banner (headless Chromium).
@Suite(.serialized, .timeLimit(.minutes(3))) struct InterferenceTests {
  @Test(
    .enabled(
      if: Chronyd.isAvailable && installed("chromium") != nil && installed("socat") != nil, "needs chrony (as root), chromium, socat"))
  func aSpoofedUBloxIsSeenEverywhereAndFeedsNoClock() async throws {
    // chronyd wants a private directory of its own for its command socket.
    let directory = scratchDirectory("gpsbridge-spoofed").appendingPathComponent("chronyd")
    defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
    let socket = directory.appendingPathComponent("gps.sock").path
    let link = directory.appendingPathComponent("gps0").path
    let unit = Int.random(in: 10..<200)
    // The segment serve makes (NTP's key for the unit) goes with the test.
    defer {
      let segment = shmget(key_t(0x4E54_5030 + unit), 0, 0)
      if segment >= 0 { shmctl(segment, IPC_RMID, nil) }
    }
    let chronyd = try Chronyd(
      refclocks: ["refclock SOCK \(socket) refid GPS poll 0 noselect", "refclock SHM \(unit) refid SHM poll 0 noselect"],
      directory: directory)
    try chronyd.start()
    defer { chronyd.stop() }
    try await waitUntilExists(chronyd.commandSocket)

    let (gpsdPort, httpPort) = (FakeGPSD.freePort(), FakeGPSD.freePort())
    let serve = try RunningProgram(
      [
        "serve", "--device", link, "--listen", "127.0.0.1:\(gpsdPort)", "--http", "\(httpPort)", "--chrony", socket, "--ntp-shm",
        String(unit),
      ], in: directory)
    defer { serve.stop() }
    // The receiver is plugged in once serve listens, and is spoofed 25 s into its drive: a
    // loaded run whose serve started late (the receiver had been playing meanwhile) had its
    // clean seconds pass before chrony had sampled both refclocks.
    #expect(await serve.serving(within: .seconds(90)), "\(serve.said)")
    let simulator = try RunningProgram(["simulate", "--pty", link, "--live", "--spoof", "25"], in: directory)
    defer { simulator.stop() }
    try await waitUntilExists(link)

    // chrony takes samples on both refclocks while the receiver is clean.
    var sources: [String: Chronyd.Source] = [:]
    let sampled = try await eventually(timeout: .seconds(60), every: .seconds(1)) {
      sources = try await chronyd.sources()
      return sources["GPS"].map { $0.reach != 0 } == true && sources["SHM"].map { $0.reach != 0 } == true
    }
    #expect(sampled, "chronyd's sources: \(sources); serve said: \(serve.said)")
    // Then the receiver says it is spoofed: said once, and nothing more reaches chrony.
    let notice = "the receiver says its signals are spoofed (spoofing indicated, by NAV-STATUS): not fed to the clock"
    #expect(await serve.until(timeout: .seconds(60)) { serve.said.contains(notice) }, "\(serve.said)")
    let starved = try await eventually(timeout: .seconds(30), every: .seconds(1)) {
      sources = try await chronyd.sources()
      return (sources["GPS"]?.lastSample ?? 0) >= 5 && (sources["SHM"]?.lastSample ?? 0) >= 5
    }
    #expect(starved, "chrony still sampled after the notice: \(sources)")
    #expect(serve.said.components(separatedBy: notice).count == 2, "said once: \(serve.said)")

    // gpsd's clients that ask are told.
    let watched = try await runProgram(
      URL(fileURLWithPath: installed("socat")!), ["-t", "2", "-", "TCP:127.0.0.1:\(gpsdPort)"],
      input: Data(#"?WATCH={"enable":true,"json":true,"integrity":true};"#.utf8), timeout: 10
    ).output
    let integrity = watched.split(whereSeparator: \.isNewline).first { $0.contains(#""class":"INTEGRITY""#) }.map(String.init)
    #expect(integrity?.contains(#""spoofingSource":"NAV-STATUS""#) == true, "\(watched)")
    #expect(integrity?.contains(#""spoofing":"indicated""#) == true || integrity?.contains(#""spoofing":"affirmed""#) == true)

    // The metrics say the state, and that the time is held.
    let metrics = await fetch("/metrics", port: httpPort) ?? ""
    #expect(metrics.contains(#"gpsbridge_receiver_interference{device="\#(link)"} 1"#), "\(metrics)")
    #expect(
      metrics.contains(#"gpsbridge_receiver_spoofing_state{device="\#(link)",state="indicated"} 1"#)
        || metrics.contains(#"gpsbridge_receiver_spoofing_state{device="\#(link)",state="affirmed"} 1"#), "\(metrics)")
    #expect(metrics.contains(#"gpsbridge_time_feeding{device="\#(link)"} 0"#), "\(metrics)")

    // The page shows the banner.
    let page = try await readStatusPage(
      "http://127.0.0.1:\(httpPort)/", in: directory.deletingLastPathComponent(),
      screenshot: directory.deletingLastPathComponent().appendingPathComponent("spoofed.png").path)
    let alarm = (page["first"] as? [String: Any])?["alarm"] as? String
    #expect(alarm?.hasPrefix("⚠ Interference: \(link): spoofing") == true, "\(page)")
  }

  /// The README's line, as written but for its paths, ports and the attack's moment: the
  /// spoofed receiver is said, the time held, the metrics set.
  @Test func theReadmesInterferenceLineWorksAsWritten() async throws {
    let line = try #require(
      try Documentation.text().split(separator: "\n").first { $0.contains("--spoof 20 & gpsbridge serve") }.map(String.init))
    let directory = scratchDirectory("gpsbridge-readme-spoof")
    defer { try? FileManager.default.removeItem(at: directory) }
    let (gpsdPort, httpPort) = (FakeGPSD.freePort(), FakeGPSD.freePort())
    let written = line.replacingOccurrences(of: "/tmp/gps0", with: directory.appendingPathComponent("gps0").path)
      .replacingOccurrences(of: "/tmp/chrony.gps.sock", with: directory.appendingPathComponent("chrony.sock").path)
      .replacingOccurrences(of: "127.0.0.1:2951", with: "127.0.0.1:\(gpsdPort)").replacingOccurrences(of: "8947", with: "\(httpPort)")
      .replacingOccurrences(of: "--spoof 20", with: "--spoof 4")
    let commands = written.components(separatedBy: " & ").map { $0.split(separator: " ").dropFirst().map(String.init) }
    #expect(commands.count == 2 && commands.allSatisfy { !$0.isEmpty }, "\(line)")
    let simulator = try RunningProgram(commands[0], in: directory)
    defer { simulator.stop() }
    try await waitUntilExists(directory.appendingPathComponent("gps0").path)
    let serve = try RunningProgram(commands[1], in: directory)
    defer { serve.stop() }
    #expect(
      await serve.until(timeout: .seconds(60)) { serve.said.contains("the receiver says its signals are spoofed") }, "\(serve.said)")
    let metrics = await fetch("/metrics", port: httpPort) ?? ""
    let link = directory.appendingPathComponent("gps0").path
    #expect(metrics.contains(#"gpsbridge_receiver_interference{device="\#(link)"} 1"#), "\(metrics)")
  }
}
