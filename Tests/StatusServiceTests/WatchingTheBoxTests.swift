import Foundation
import NMEA
import TestHelpers
import Testing

/// The box watched by real programs: Prometheus scrapes `/metrics`, headless Chromium draws
/// the page from its live events, a private chronyd says what it makes of the time `serve`
/// feeds it.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct WatchingTheBoxTests {
  /// Prometheus, with the README's scrape configuration, scrapes a box replaying a 1 Hz
  /// capture every second; its own query API then has our series, with the capture's values.
  @Test(.enabled(if: installed("prometheus") != nil, "prometheus is not installed (Debian: prometheus)"))
  func prometheusScrapesTheReceiversSeries() async throws {
    let directory = scratchDirectory("prometheus-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let fixture = fixturesDirectory.appendingPathComponent("sirf-nmea22-1hz.nmea").path
    let (gpsdPort, httpPort, prometheusPort) = (FakeGPSD.freePort(), FakeGPSD.freePort(), FakeGPSD.freePort())
    let serve = try RunningProgram(
      ["serve", "--replay", fixture, "--loop", "--listen", "127.0.0.1:\(gpsdPort)", "--http", "127.0.0.1:\(httpPort)"], in: directory)
    defer { serve.stop() }
    // The README's scrape configuration, scraping every second.
    let configuration = directory.appendingPathComponent("prometheus.yml")
    try Self.readmeScrapeConfiguration(port: httpPort).write(to: configuration, atomically: true, encoding: .utf8)
    let prometheus = try Peer(
      installed("prometheus")!,
      [
        "--config.file=\(configuration.path)", "--storage.tsdb.path=\(directory.appendingPathComponent("data").path)",
        "--web.listen-address=127.0.0.1:\(prometheusPort)",
      ])
    defer { prometheus.kill() }

    /// The value of the one series `query` selects, as Prometheus answers it now.
    func value(_ query: String) async -> Double? {
      let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
      guard let body = await fetch("/api/v1/query?query=\(encoded)", port: prometheusPort),
        let answer = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
        let data = answer["data"] as? [String: Any], let results = data["result"] as? [[String: Any]], results.count == 1,
        let pair = results[0]["value"] as? [Any], let text = pair.last as? String
      else { return nil }
      return Double(text)
    }
    let device = #"{device="\#(fixture)"}"#
    var epochs: Double?
    #expect(
      await eventually(timeout: .seconds(60), every: .milliseconds(500)) {
        epochs = await value("gpsbridge_receiver_epochs_total" + device)
        return (epochs ?? 0) >= 3
      }, "serve said: \(serve.said)")
    // The capture's own figures: its rate, and the satellites its fixes used.
    var decoder = FixDecoder()
    decoder.append(try Data(contentsOf: URL(fileURLWithPath: fixture)))
    decoder.finish()
    var used: Set<Double> = []
    while let fix = decoder.next() { if let count = fix.satellitesUsed { used.insert(Double(count)) } }
    #expect(await value("gpsbridge_receiver_epoch_rate_hertz" + device) == 1)
    let satellites = await value("gpsbridge_receiver_satellites_used" + device)
    #expect(satellites.map(used.contains) == true, "\(String(describing: satellites)) not among \(used)")
    #expect(await value("gpsbridge_receiver_fix_mode" + device) != nil)
    #expect(await value("sum(gpsbridge_receiver_messages_total{protocol=\"nmea\"})").map { $0 > 0 } == true)
    // The counter goes on growing, scrape after scrape.
    let before = epochs ?? 0
    #expect(await eventually(every: .milliseconds(500)) { (await value("gpsbridge_receiver_epochs_total" + device) ?? 0) > before })
    #expect(await value("up{job=\"gpsbridge\"}") == 1)
  }

  /// Headless Chromium loads the page while the demo drive plays: the satellites it draws are
  /// those of a SKY report gpspipe reads from the same box, the position moves between two
  /// reads, and the page is live (its events come by Server-Sent Events).
  @Test(.enabled(if: installed("chromium") != nil && installed("gpspipe") != nil, "needs chromium and gpspipe"))
  func chromiumDrawsTheSkyAndFollowsTheDrive() async throws {
    let directory = scratchDirectory("chromium-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let (gpsdPort, httpPort) = (FakeGPSD.freePort(), FakeGPSD.freePort())
    let serve = try RunningProgram(["serve", "--demo", "--listen", "127.0.0.1:\(gpsdPort)", "--http", "\(httpPort)"], in: directory)
    defer { serve.stop() }
    #expect(await serve.serving(), "\(serve.said)")

    // SKY reports from the same box, read while the page is read.
    let sky = Task {
      try await runProgram(URL(fileURLWithPath: installed("gpspipe")!), ["-w", "-n", "16", "127.0.0.1:\(gpsdPort)"], timeout: 30)
    }
    let screenshot = directory.appendingPathComponent("status-page.png").path
    let page = try await readStatusPage("http://127.0.0.1:\(httpPort)/", in: directory, screenshot: screenshot)
    let first = try #require(page["first"] as? [String: Any])
    let second = try #require(page["second"] as? [String: Any])
    let drawn = Set(
      ((first["satellites"] as? [[String: Any]]) ?? []).compactMap { satellite -> String? in
        guard let prn = satellite["prn"] as? Int, let used = satellite["used"] as? Bool else { return nil }
        return "\(prn)\(used ? "+" : "-")"
      })
    #expect(!drawn.isEmpty)
    let skies = try await sky.value.output.split(whereSeparator: \.isNewline).compactMap { line -> Set<String>? in
      guard line.contains(#""class":"SKY""#), let report = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let satellites = report["satellites"] as? [[String: Any]]
      else { return nil }
      return Set(
        satellites.compactMap { satellite in
          guard let prn = satellite["PRN"] as? Int, satellite["el"] != nil, satellite["az"] != nil else { return nil }
          return "\(prn)\((satellite["used"] as? Bool) == true ? "+" : "-")"
        })
    }
    #expect(skies.contains(drawn), "drawn \(drawn.sorted()), SKY reports \(skies.map { $0.sorted() })")
    // The demo drive moves: the position shown moves with it, by the live events alone.
    #expect(first["position"] as? String != nil)
    // The header names the program once, with its version; the receiver's own UTC time is shown.
    let header = try #require(first["header"] as? String)
    #expect(header.hasPrefix("gpsbridge") && !header.contains("gpsbridge gpsbridge") && header.contains("0."), "\(header)")
    #expect(
      (first["time"] as? String)?.hasPrefix("2024-05-01 08:") == true && (first["time"] as? String)?.hasSuffix(" UTC") == true, "\(first)")
    #expect(first["position"] as? String != second["position"] as? String, "\(first) \(second)")
    #expect(second["live"] as? String == "live")
    #expect(FileManager.default.fileExists(atPath: screenshot))
    if let keep = ProcessInfo.processInfo.environment["GPSBRIDGE_KEEP_SCREENSHOT"] {
      try? FileManager.default.removeItem(atPath: keep)
      try FileManager.default.copyItem(atPath: screenshot, toPath: keep)
    }
  }
}

extension WatchingTheBoxTests {
  /// A private chronyd with three refclocks: one `serve` feeds and chrony selects, one fed but
  /// `noselect`, one nothing feeds; and a fourth `serve` feeds a socket chrony has no refclock
  /// for. Each is said on the page's JSON and in the metrics, with what to do.
  @Test(.enabled(if: Chronyd.isAvailable, "needs chronyd and chronyc, as root (Debian: chrony)"))
  func chronysViewOfEachRefclockIsShown() async throws {
    let directory = URL(fileURLWithPath: "/tmp/gpsbridge-box-chrony-\(getpid())-\(Int.random(in: 0..<1_000_000))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let socket = { (name: String) in directory.appendingPathComponent("\(name).sock").path }
    let chronyd = try Chronyd(
      refclocks: [
        "refclock SOCK \(socket("gps")) refid GPS poll 0", "refclock SOCK \(socket("mon")) refid MON poll 0 noselect",
        "refclock SOCK \(socket("none")) refid NONE poll 0",
      ], directory: directory.appendingPathComponent("chrony"))
    try chronyd.start()
    defer { chronyd.stop() }
    try await waitUntilExists(chronyd.commandSocket)

    var programs: [RunningProgram] = []
    defer { for program in programs { program.stop() } }
    var ports: [String: (gpsd: Int, http: Int)] = [:]
    for name in ["gps", "mon", "nowhere"] {
      let link = directory.appendingPathComponent("\(name)0").path
      programs.append(try RunningProgram(["simulate", "--pty", link, "--live"], in: directory))
      try await waitUntilExists(link)
      let (gpsdPort, httpPort) = (FakeGPSD.freePort(), FakeGPSD.freePort())
      ports[name] = (gpsdPort, httpPort)
      programs.append(
        try RunningProgram(
          [
            "serve", "--device", link, "--listen", "127.0.0.1:\(gpsdPort)", "--http", "\(httpPort)", "--chrony", socket(name),
            "--chrony-control", chronyd.commandSocket,
          ], in: directory))
    }
    let served = programs[1]

    /// chrony's view as the first serve's page has it.
    func clocks() async -> [String: String] {
      guard let body = await fetch("/status.json", port: ports["gps"]!.http),
        let status = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
        let chrony = status["chrony"] as? [String: Any], let clocks = chrony["referenceClocks"] as? [[String: Any]]
      else { return [:] }
      return Dictionary(
        uniqueKeysWithValues: clocks.compactMap { clock in (clock["name"] as? String).map { ($0, clock["state"] as? String ?? "") } })
    }
    var seen: [String: String] = [:]
    let settled = await eventually(timeout: .seconds(90), every: .seconds(1)) {
      seen = await clocks()
      return seen == ["GPS": "selected", "MON": "noselect", "NONE": "not reachable"]
    }
    #expect(settled, "the page says \(seen); serve said: \(served.said)")
    // Nothing is judged before the receivers have had their chance: the refclocks that get
    // samples were never said to have none while their feeds were starting (it was once said
    // before the receiver was even opened).
    for name in ["GPS", "MON"] { #expect(!served.said.contains("chrony: \(name): reach 0"), "\(served.said)") }
    let metrics = await fetch("/metrics", port: ports["gps"]!.http) ?? ""
    #expect(metrics.contains(#"gpsbridge_chrony_refclock_selected{refclock="GPS"} 1"#), "\(metrics)")
    #expect(metrics.contains(#"gpsbridge_chrony_refclock_state{refclock="MON",state="noselect"} 1"#), "\(metrics)")
    #expect(metrics.contains(#"gpsbridge_chrony_refclock_reach{refclock="NONE"} 0"#), "\(metrics)")
    // Said once on stderr as it changed, with what to do for the others.
    #expect(served.said.contains("chrony: GPS: selected: chrony steers the clock by it"), "\(served.said)")
    #expect(served.said.contains("chrony: MON: noselect: chrony measures it"), "\(served.said)")
    #expect(
      await served.until(timeout: .seconds(90)) { served.said.contains("chrony: NONE: reach 0: chrony got no samples from it.") },
      "\(served.said)")
    // ?TIMESERVICE says it too.
    let answer = try await runProgram(
      URL(fileURLWithPath: "/bin/sh"), ["-c", "printf '?TIMESERVICE;\\n' | socat -t 1 - TCP:127.0.0.1:\(ports["gps"]!.gpsd)"], timeout: 10
    ).output
    #expect(answer.contains(#""chronyView":{"usesTime":true,"findings":["#), "\(answer)")

    // The socket chrony has no refclock for.
    let nowhere = await eventually(timeout: .seconds(60), every: .seconds(1)) {
      (await fetch("/status.json", port: ports["nowhere"]!.http) ?? "").contains("chrony has no refclock for \(socket("nowhere"))")
    }
    let page = await fetch("/status.json", port: ports["nowhere"]!.http) ?? ""
    #expect(nowhere, "\(page)")
  }
}

extension WatchingTheBoxTests {
  /// The lines of the README's "Watching the box" section that start with `prefix`.
  static func readmeLines(startingWith prefix: String) throws -> [String] {
    let section = try Documentation.section("Watching the box")
    return section.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
  }

  /// The README's Prometheus scrape configuration, its port and interval changed for a test.
  static func readmeScrapeConfiguration(port: Int) throws -> String {
    let section = try Documentation.section("Watching the box")
    let yaml = try #require(section.components(separatedBy: "```yaml\n").dropFirst().first?.components(separatedBy: "```").first)
    return yaml.replacingOccurrences(of: "127.0.0.1:8947", with: "127.0.0.1:\(port)")
      .replacingOccurrences(of: "scrape_interval: 5s", with: "scrape_interval: 1s")
  }

  /// The README's lines, run as written (on free ports, and a simulated receiver for
  /// /dev/ttyACM0).
  @Test(.enabled(if: installed("curl") != nil && installed("jq") != nil, "needs curl and jq"))
  func theReadmesLinesWorkAsWritten() async throws {
    let directory = scratchDirectory("box-readme-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let path =
      URL(fileURLWithPath: Gpsbridge.executable).deletingLastPathComponent().path + ":"
      + (ProcessInfo.processInfo.environment["PATH"] ?? "")

    // The demo drive's one-liner.
    let tryIt = try #require(try Self.readmeLines(startingWith: "gpsbridge serve --demo --listen 127.0.0.1:2948 --http 8947 &").first)
    let (gpsdPort, httpPort) = (FakeGPSD.freePort(), FakeGPSD.freePort())
    let line = tryIt.replacingOccurrences(of: "2948", with: "\(gpsdPort)").replacingOccurrences(of: "8947", with: "\(httpPort)")
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/bash")
    shell.arguments = ["-c", line]
    shell.environment = ProcessInfo.processInfo.environment.merging(["PATH": path]) { $1 }
    let output = Pipe()
    shell.standardOutput = output
    shell.standardError = FileHandle.nullDevice
    try shell.run()
    let said = try await offThePool { String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
    shell.waitForExit()
    #expect(said.hasPrefix(#"gpsbridge_receiver_epochs_total{device="simulated ublox receiver"} "#), "\(line): \(said)")

    // With a receiver on /dev/ttyACM0 (here a simulated one), and the jq line against it.
    let served = try #require(try Self.readmeLines(startingWith: "gpsbridge serve --device /dev/ttyACM0 --http 8947").first)
    let link = directory.appendingPathComponent("gps0").path
    let simulator = try RunningProgram(["simulate", "--pty", link, "--live"], in: directory)
    defer { simulator.stop() }
    try await waitUntilExists(link)
    let port = FakeGPSD.freePort()
    let arguments = served.replacingOccurrences(of: "/dev/ttyACM0", with: link).replacingOccurrences(of: "8947", with: "\(port)")
      .split(separator: " ").dropFirst().map(String.init)
    let serve = try RunningProgram(arguments + ["--listen", "127.0.0.1:\(FakeGPSD.freePort())"], in: directory)
    defer { serve.stop() }
    #expect(
      await eventually(every: .milliseconds(200)) { (await fetch("/status.json", port: port) ?? "").contains(#""mode":"3D""#) },
      "\(serve.said)")
    let text = try Documentation.text()
    let jq = try #require(
      text.split(separator: "\n").compactMap { line -> String? in
        guard let start = line.range(of: "`curl -s http://127.0.0.1:8947/status.json | jq") else { return nil }
        return String(line[start.lowerBound...].dropFirst().prefix { $0 != "`" })
      }.first)
    let fix = try await runProgram(
      URL(fileURLWithPath: "/bin/sh"), ["-c", jq.replacingOccurrences(of: "8947", with: "\(port)")], timeout: 10)
    #expect(fix.output.contains(#""mode": "3D""#) && fix.output.contains(#""latitude": "#), "\(jq): \(fix.output) \(fix.error)")

    // Prometheus' own linter has nothing to say of the metrics of a receiver on a serial line.
    if let promtool = installed("promtool") {
      let metrics = try #require(await fetch("/metrics", port: port))
      #expect(metrics.contains("gpsbridge_receiver_line_baud{"), "\(metrics)")
      let lint = try await runProgram(URL(fileURLWithPath: promtool), ["check", "metrics"], input: Data(metrics.utf8), timeout: 10)
      #expect(lint.status == 0 && lint.output.isEmpty && lint.error.isEmpty, "\(lint.output) \(lint.error)")
    }
  }
}
