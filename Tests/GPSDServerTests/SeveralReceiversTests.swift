import Foundation
import TestHelpers
import Testing

/// `serve` with two receivers (two simulated ones on pseudo-terminals), read with gpspipe and a
/// plain socket: both listed, both reported under their own names, a watch for one gets one.
@Suite(.serialized, .timeLimit(.minutes(2)), .enabled(if: Installed.path("gpspipe") != nil, "gpspipe is not installed"))
struct SeveralReceiversTests {
  @Test func twoReceiversAreServedFromOnePortEachUnderItsName() async throws {
    let first = PseudoTerminal.temporaryLink("first"), second = PseudoTerminal.temporaryLink("second")
    let simulators = try [
      Gpsbridge.start(["simulate", "--pty", first, "--live"]),
      Gpsbridge.start(["simulate", "--pty", second, "--live", "--profile", "sirf"]),
    ]
    defer { for simulator in simulators { simulator.terminate() } }
    for link in [first, second] {
      try await waitUntilExists(link)
    }
    let port = FakeGPSD.freePort()
    let server = try RunningProgram(
      ["serve", "--device", first, "--device", second, "--listen", "127.0.0.1:\(port)"], in: scratchDirectory("several-\(port)"))
    defer { server.stop() }

    // Every receiver's TPVs, under its own name, once both are found.
    var tpvDevices: Set<String> = []
    var output = ""
    #expect(await server.serving())
    for _ in 0..<10 where tpvDevices.count < 2 {
      output = try await runProgram(Installed.path("gpspipe")!, ["-w", "-n", "16", "127.0.0.1:\(port)"], timeout: 15).output
      tpvDevices = Set(Self.lines(output, class: "TPV").compactMap { $0["device"] as? String })
    }
    #expect(
      tpvDevices == [first, second], "\(output); the server \(server.process.isRunning ? "runs" : "ended with \(server.exitStatus ?? 0)")")
    // Both are listed (asked once both report: a receiver is listed from when it is found).
    let client = try RawClient(port: port)
    #expect(try await Self.devicesListed(to: client) == [first, second])

    // A watch for the second receiver gets its reports only.
    try client.send(#"?WATCH={"enable":true,"json":true,"device":"\#(second)"};"#)
    let watched = try await offThePool { client.readBlocking(for: 60) { Self.lines($0.joined(separator: "\n"), class: "TPV").count >= 3 } }
      .joined(separator: "\n")
    let devices = Set(Self.lines(watched, class: "TPV").compactMap { $0["device"] as? String })
    #expect(devices == [second], "\(watched)")

    // ?DEVICE names one (the first: this client watches only the second, so only the answer
    // can be a DEVICE of the first).
    try client.send(#"?DEVICE={"path":"\#(first)"};"#)
    let named = await client.read(for: 5) { lines in lines.contains { $0.hasPrefix(#"{"class":"DEVICE","path":"\#(first)""#) } }
    #expect(named.contains { $0.hasPrefix(#"{"class":"DEVICE","path":"\#(first)""#) }, "\(named.suffix(3))")

    // ?POLL reports each.
    try client.send("?POLL;")
    let polled = try await offThePool { client.readBlocking(for: 60) { !Self.lines($0.joined(separator: "\n"), class: "POLL").isEmpty } }
      .joined(separator: "\n")
    let poll = Self.lines(polled, class: "POLL").last
    #expect(poll?["active"] as? Int == 2, "\(polled)")
  }

  /// `--device` with wildcards serves every receiver that matches, those plugged in later
  /// too, and opens nothing else: not a plain file that matches, not a receiver that does not.
  @Test func aPatternServesEveryMatchingReceiverAsItIsPluggedIn() async throws {
    // Removed at exit, after the simulators (which unlink their ptys' links as they end).
    let directory = scratchDirectory("gpsbridge-pattern").path
    let early = directory + "/gps-early", late = directory + "/gps-late", other = directory + "/compass"
    try "not a receiver".write(toFile: directory + "/gps-notes", atomically: true, encoding: .utf8)
    var simulators = try [
      Gpsbridge.start(["simulate", "--pty", early, "--live"]), Gpsbridge.start(["simulate", "--pty", other, "--live"]),
    ]
    defer { for simulator in simulators { simulator.terminate() } }
    for link in [early, other] {
      try await waitUntilExists(link)
    }
    let port = FakeGPSD.freePort()
    let server = try RunningProgram(
      ["serve", "--device", directory + "/gps-*", "--listen", "127.0.0.1:\(port)"], in: scratchDirectory("pattern-\(port)"))
    defer { server.stop() }
    #expect(await server.serving(), "\(server.said)")
    #expect(try await tpvDevices(port: port, until: [early]) == [early])

    // Plugged in while serving: found at once (inotify), served beside the first.
    simulators.append(try Gpsbridge.start(["simulate", "--pty", late, "--live", "--profile", "sirf"]))
    #expect(try await tpvDevices(port: port, until: [early, late]) == [early, late])
    #expect(try await Self.devicesListed(to: try RawClient(port: port)) == [early, late])
    #expect(server.process.isRunning)
  }

  /// A pattern nothing matches yet is said, and waited on: the server is up meanwhile.
  @Test func aPatternThatMatchesNothingYetIsSaidAndWaitedOn() async throws {
    let pattern = FileManager.default.temporaryDirectory.appendingPathComponent("gpsbridge-none-\(getpid())/gps-*").path
    let result = try await runProgram(
      URL(fileURLWithPath: Gpsbridge.executable),
      ["serve", "--device", pattern, "--listen", "127.0.0.1:\(FakeGPSD.freePort())"], timeout: 2)
    #expect(!result.endedByItself, "\(result.error)")
    #expect(result.error.contains("No receiver matches '\(pattern)' yet: waiting for one to be plugged in."), "\(result.error)")
  }

  /// The devices that gpspipe sees TPVs from, read until they are `wanted` (or ten tries).
  func tpvDevices(port: Int, until wanted: Set<String>) async throws -> Set<String> {
    var devices: Set<String> = []
    // Ten tries of a server that listens (the caller has waited for it to say so).
    for _ in 0..<10 where devices != wanted {
      let output = try await runProgram(Installed.path("gpspipe")!, ["-w", "-n", "16", "127.0.0.1:\(port)"], timeout: 15).output
      devices = Set(Self.lines(output, class: "TPV").compactMap { $0["device"] as? String })
    }
    return devices
  }

  /// A second "receiver" that is a plain file stops for good; the first is served on.
  @Test func oneReceiverFailingStopsNoOther() async throws {
    let link = PseudoTerminal.temporaryLink("survivor")
    let simulator = try Gpsbridge.start(["simulate", "--pty", link, "--live"])
    defer { simulator.terminate() }
    try await waitUntilExists(link)
    let port = FakeGPSD.freePort()
    let server = try RunningProgram(
      ["serve", "--device", link, "--device", "/etc/hostname", "--listen", "127.0.0.1:\(port)"],
      in: scratchDirectory("not-a-receiver-\(port)"))
    defer { server.stop() }
    var devices: Set<String> = []
    #expect(await server.serving())
    for _ in 0..<10 where devices.isEmpty {
      let output = try await runProgram(Installed.path("gpspipe")!, ["-w", "-n", "8", "127.0.0.1:\(port)"], timeout: 15).output
      devices = Set(Self.lines(output, class: "TPV").compactMap { $0["device"] as? String })
    }
    #expect(devices == [link])
    #expect(server.process.isRunning)
  }

  /// The paths `?DEVICES` lists to `client`.
  static func devicesListed(to client: RawClient) async throws -> Set<String> {
    try client.send("?DEVICES;")
    let answer = try await offThePool { client.readBlocking(for: 60) { !Self.lines($0.joined(separator: "\n"), class: "DEVICES").isEmpty } }
      .joined(separator: "\n")
    let listed = Self.lines(answer, class: "DEVICES").last?["devices"] as? [[String: Any]] ?? []
    return Set(listed.compactMap { $0["path"] as? String })
  }

  static func lines(_ text: String, class name: String) -> [[String: Any]] {
    text.split(whereSeparator: \.isNewline).compactMap { line in
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["class"] as? String == name
      else { return nil }
      return object
    }
  }
}

/// A pattern's slots are given back: by paths that failed at once (links to /dev/null and
/// /dev/zero) and by receivers that were unplugged, so a receiver plugged in after more of
/// those than the server has slots is still served, and a failed path is not tried in a loop.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: Installed.path("gpspipe") != nil, "gpspipe is not installed"))
struct PatternSlotTests {
  @Test func slotsOfFailedAndUnpluggedReceiversAreGivenBack() async throws {
    let scratch = scratchDirectory("gpsbridge-slots")
    let directory = scratch.path
    for index in 0..<4 { symlink("/dev/null", directory + "/gps-null\(index)") }
    symlink("/dev/zero", directory + "/gps-zero")
    let port = FakeGPSD.freePort()
    let server = try RunningProgram(["serve", "--device", directory + "/gps-*", "--listen", "127.0.0.1:\(port)"], in: scratch)
    defer { server.stop() }
    #expect(await server.serving(), "\(server.said)")
    let served = SeveralReceiversTests()

    // Receivers plugged in and unplugged one after another, more than there are slots.
    for index in 0..<5 {
      let link = directory + "/gps-usb\(index)"
      let simulator = try Gpsbridge.start(["simulate", "--pty", link, "--live"])
      try await waitUntilExists(link)
      let devices = try await served.tpvDevices(port: port, until: [link])
      // Unplugged: the simulator ends and takes its link away (waited for on a thread of its
      // own: Process.waitUntilExit on the pool can spin).
      _ = await finish(simulator, reading: [], timeout: 0)
      #expect(devices == [link], "receiver \(index)")
    }
    let last = directory + "/gps-last"
    let simulator = try Gpsbridge.start(["simulate", "--pty", last, "--live"])
    defer { simulator.terminate() }
    try await waitUntilExists(last)
    #expect(try await served.tpvDevices(port: port, until: [last]) == [last])

    server.stop()
    let said = server.said
    // Each failed path was tried at most once per change in the directory (six receivers came,
    // each a change or two): a few times, not in a loop, which would be thousands.
    let failures = said.components(separatedBy: "gps-null0 is not a serial device").count - 1
    #expect(failures >= 1 && failures <= 30, "\(failures) tries of gps-null0: \(said)")
  }
}
