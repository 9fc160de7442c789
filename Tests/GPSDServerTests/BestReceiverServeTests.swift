import Foundation
import TestHelpers
import Testing

/// `serve --best`: simulated receivers on pseudo-terminals, the virtual `best` read by gpspipe
/// as any receiver. It leaves a receiver unplugged with no epoch missed or repeated, moves to
/// an RTK fix once it has held it, and leaves a receiver that says it is spoofed.
@Suite(.timeLimit(.minutes(3)), .enabled(if: Installed.path("gpspipe") != nil, "gpspipe is not installed"))
struct BestReceiverServeTests {
  /// Two receivers, `best` served, and gpspipe watching it.
  final class Setup: @unchecked Sendable {
    let links: [String]
    var simulators: [String: Process] = [:]
    let server: RunningProgram
    let pipe: RunningProgram
    let port = FakeGPSD.freePort()

    init(
      _ name: String, receivers: [(link: String, arguments: [String])], startedLater: Set<String> = [], serving extra: [String] = []
    ) async throws {
      links = receivers.map(\.link)
      for (link, arguments) in receivers where !startedLater.contains(link) {
        simulators[link] = try Gpsbridge.start(["simulate", "--pty", link, "--live"] + arguments)
        try await waitUntilExists(link)
      }
      let directory = scratchDirectory("best-\(name)-\(port)")
      server = try RunningProgram(
        ["serve", "--best", "--listen", "127.0.0.1:\(port)"] + links.flatMap { ["--device", $0] } + extra, in: directory)
      #expect(await server.serving(within: .seconds(90)), "\(server.said)")
      // Line-buffered (stdbuf): gpspipe writes a file in blocks of 4 KiB, a few epochs late.
      pipe = try RunningProgram(
        ["-oL", Installed.path("gpspipe")!, "-w", "127.0.0.1:\(port):best"], in: directory, keepsOutput: true, program: "/usr/bin/stdbuf")
    }

    func start(_ link: String, _ arguments: [String]) async throws {
      simulators[link] = try Gpsbridge.start(["simulate", "--pty", link, "--live"] + arguments)
      try await waitUntilExists(link)
    }

    /// The times of `best`'s TPVs gpspipe printed, in order.
    var bestTimes: [Date] {
      let formatter = ISO8601DateFormatter()
      formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
      return Self.tpvs(pipe.printed, device: "best").compactMap { ($0["time"] as? String).flatMap(formatter.date(from:)) }
    }

    /// The TPVs of `device` in gpsd's output.
    static func tpvs(_ output: String, device: String) -> [[String: Any]] {
      // gpsd's lines end in CR LF: one Character, which a split on "\n" never finds. Only TPV
      // lines are parsed: this is asked after every line gpspipe writes, on a growing output.
      output.split(whereSeparator: \.isNewline).compactMap { line in
        guard line.contains(#""class":"TPV""#),
          let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
          object["class"] as? String == "TPV", object["device"] as? String == device
        else { return nil }
        return object
      }
    }

    /// The switches serve said: "best follows B instead of A: why."
    var switches: [String] { server.said.split(separator: "\n").filter { $0.hasPrefix("gpsbridge: best follows ") }.map(String.init) }

    /// The receiver `best` follows now, by what serve said last.
    var followed: String? {
      switches.last.flatMap { line in
        links.first { line.hasPrefix("gpsbridge: best follows \($0):") || line.hasPrefix("gpsbridge: best follows \($0) instead") }
      }
    }

    func stop() {
      pipe.stop()
      server.stop()
      for simulator in simulators.values { simulator.terminate() }
    }
  }

  @Test func theFollowedReceiverUnpluggedIsLeftWithNoEpochMissedOrRepeated() async throws {
    let (a, b) = (PseudoTerminal.temporaryLink("best-a"), PseudoTerminal.temporaryLink("best-b"))
    let setup = try await Setup("unplugged", receivers: [(a, []), (b, ["--profile", "ublox8"])])
    defer { setup.stop() }
    #expect(
      await setup.pipe.until(timeout: .seconds(60)) { setup.bestTimes.count >= 4 },
      "\(setup.server.said) gpspipe: \(setup.pipe.printed.suffix(1000)) \(setup.pipe.said)")
    let followed = try #require(setup.followed, "\(setup.server.said)")
    let other = followed == a ? b : a
    setup.simulators[followed]?.terminate()
    #expect(await setup.server.until { setup.switches.count >= 2 }, "\(setup.server.said)")
    let count = setup.bestTimes.count
    #expect(await setup.pipe.until(timeout: .seconds(60)) { setup.bestTimes.count >= count + 4 })

    #expect(setup.switches.last == "gpsbridge: best follows \(other) instead of \(followed): the receiver it followed went away.")
    // One epoch a second, each once, across the switch.
    let times = setup.bestTimes
    let steps = zip(times, times.dropFirst()).map { ($1.timeIntervalSince($0) * 1000).rounded() }
    #expect(steps.allSatisfy { $0 == 1000 }, "steps (ms) between best's TPVs: \(steps)")
  }

  @Test func anRTKFixPluggedInLaterIsFollowedOnceItHasHeldIt() async throws {
    let (ublox, rtk) = (PseudoTerminal.temporaryLink("best-ublox"), PseudoTerminal.temporaryLink("best-rtk"))
    let setup = try await Setup("rtk", receivers: [(ublox, []), (rtk, ["--profile", "rtk", "--radio"])], startedLater: [rtk])
    defer { setup.stop() }
    #expect(await setup.server.until(timeout: .seconds(60)) { setup.followed == ublox }, "\(setup.server.said)")
    try await setup.start(rtk, ["--profile", "rtk", "--radio"])
    #expect(await setup.server.until(timeout: .seconds(60)) { setup.followed == rtk }, "\(setup.server.said)")
    let count = setup.bestTimes.count
    // At the RTK receiver's 10 Hz, for a while: still followed, no switch back.
    #expect(await setup.pipe.until(timeout: .seconds(60)) { setup.bestTimes.count >= count + 50 })
    // Moved to it once, for its better fix. (A machine that stalls serve for over a second
    // would make it look silent: a switch for that is no fault, and allowed.)
    let switches = setup.switches
    #expect(
      Array(switches.prefix(2)) == [
        "gpsbridge: best follows \(ublox): the first with a fix.", "gpsbridge: best follows \(rtk) instead of \(ublox): a better fix held.",
      ], "\(setup.server.said)")
    #expect(switches.dropFirst(2).allSatisfy { $0.hasSuffix("went silent.") }, "\(setup.server.said)")
    // Its cadence: every tenth of a second, none twice (a stall of the simulator's line may
    // lose an epoch: it drops what nobody reads, as a serial line does).
    let times = setup.bestTimes.suffix(40)
    let steps = zip(times, times.dropFirst()).map { Int(($1.timeIntervalSince($0) * 1000).rounded()) }
    #expect(
      steps.allSatisfy { $0 > 0 && $0 % 100 == 0 } && steps.filter { $0 == 100 }.count >= steps.count * 9 / 10,
      "steps (ms) between best's TPVs: \(steps)")
  }

  @Test func aReceiverThatSaysItIsSpoofedIsLeftWithinAnEpoch() async throws {
    let (spoofed, honest) = (PseudoTerminal.temporaryLink("best-spoofed"), PseudoTerminal.temporaryLink("best-honest"))
    // The u-blox is plugged in once serve listens (started before, a loaded run's serve read it
    // spoofed from its first epoch and never followed it), is followed first, and says it is
    // spoofed 20 s into its drive; the other is plugged in after.
    let setup = try await Setup(
      "spoofed", receivers: [(spoofed, ["--spoof", "20"]), (honest, ["--profile", "ublox8"])], startedLater: [spoofed, honest])
    defer { setup.stop() }
    // Every device's objects, in the order served, INTEGRITY and SWITCH too, from before the
    // first receiver: on a loaded machine its 20 s may be over before a later watch begins.
    let client = try RawClient(port: setup.port)
    try client.send(#"?WATCH={"enable":true,"json":true,"integrity":true,"switches":true};"#)
    try await setup.start(spoofed, ["--spoof", "20"])
    #expect(await setup.server.until(timeout: .seconds(60)) { setup.followed == spoofed }, "\(setup.server.said)")
    try await setup.start(honest, ["--profile", "ublox8"])
    let objects = try await offThePool {
      client.readBlocking(for: 90) { lines in lines.contains { $0.contains(#""class":"SWITCH""#) && $0.contains("interference") } }
    }
    #expect(
      setup.switches.last == "gpsbridge: best follows \(honest) instead of \(spoofed): the receiver it followed reports interference.")

    // The SWITCH says who, why and when; best gave at most one epoch between the spoofed
    // receiver's saying so, with the other one there to follow, and the switch. (On a loaded
    // machine the spoofing may be said before the other is plugged in: best has no other to
    // follow until its first epoch.)
    let said = try #require(objects.firstIndex { $0.contains(#""class":"INTEGRITY""#) && $0.contains(#""spoofing":"indicated""#) })
    let otherThere = try #require(objects.firstIndex { $0.contains(#""class":"TPV""#) && $0.contains(#""device":"\#(honest)""#) })
    let told = max(said, otherThere)
    let switched = try #require(objects.lastIndex { $0.contains(#""class":"SWITCH""#) })
    let object = try #require(try JSONSerialization.jsonObject(with: Data(objects[switched].utf8)) as? [String: Any])
    #expect(object["device"] as? String == "best" && object["from"] as? String == spoofed && object["to"] as? String == honest)
    #expect((object["reason"] as? String)?.contains("interference") == true && object["time"] is String, "\(object)")
    let between = objects[min(told, switched)..<switched].filter { $0.contains(#""class":"TPV","device":"best""#) }
    #expect(between.count <= 1, "best's TPVs between the spoofing said and the switch: \(between)")
  }

  /// `--nmea-tcp` and `--nmea-udp` of `best`: gpsd itself reads the TCP stream as a receiver
  /// and makes of it the positions best's TPVs show; a Python listener gets the datagrams,
  /// every checksum intact.
  @Test(.enabled(if: PythonModules.available(["pynmeagps"]) && FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd")))
  func bestsNMEAGoesToTCPAndUDPAndGPSDReadsItAsAReceiver() async throws {
    let (a, b) = (PseudoTerminal.temporaryLink("nmea-a"), PseudoTerminal.temporaryLink("nmea-b"))
    let (tcp, udp, gpsdPort) = (FakeGPSD.freePort(), FakeGPSD.freePort(), FakeGPSD.freePort())
    let directory = scratchDirectory("best-nmea-\(tcp)")
    // The listener first: datagrams before it would be lost.
    let listener = try RunningProgram(
      [
        "python3", "-u", "-c",
        """
        import socket, sys, pynmeagps
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', int(sys.argv[1])))
        print('listening', flush=True)
        kinds = {}
        while kinds.get('GGA', 0) < 5:
            data, _ = s.recvfrom(65536)
            for line in data.split(b'\\r\\n'):
                if line:
                    message = pynmeagps.NMEAReader.parse(line, validate=pynmeagps.VALCKSUM)
                    kinds[message.msgID] = kinds.get(message.msgID, 0) + 1
        print(' '.join(f'{k}={v}' for k, v in sorted(kinds.items())), flush=True)
        """,
        String(udp),
      ], in: directory, keepsOutput: true, program: "/usr/bin/env")
    defer { listener.stop() }
    #expect(await listener.until { listener.printed.contains("listening") }, "\(listener.said)")
    let setup = try await Setup(
      "nmea", receivers: [(a, []), (b, ["--profile", "ublox8"])],
      serving: ["--nmea-tcp", String(tcp), "--nmea-udp", "127.0.0.1:\(udp)"])
    defer { setup.stop() }
    let gpsd = try RunningProgram(
      ["-N", "-n", "-D", "3", "-S", String(gpsdPort), "-F", directory.appendingPathComponent("gpsd.sock").path, "tcp://127.0.0.1:\(tcp)"],
      in: directory, program: "/usr/sbin/gpsd")
    defer { gpsd.stop() }
    #expect(await gpsd.until { gpsd.said.contains("listening on port \(gpsdPort)") }, "\(gpsd.said)")
    let read = try await runProgram(Installed.path("gpspipe")!, ["-w", "-n", "20", "127.0.0.1:\(gpsdPort)"], timeout: 90)
    let throughGPSD = Self.Setup.tpvs(read.output, device: "tcp://127.0.0.1:\(tcp)")
    #expect(throughGPSD.count >= 5, "\(read.output.suffix(1500)) \(gpsd.said)")
    #expect(await setup.pipe.until { setup.bestTimes.count >= throughGPSD.count + 5 })

    // Each epoch gpsd made of the NMEA is best's, at the same time, to the NMEA's precision.
    let best = Dictionary(Self.Setup.tpvs(setup.pipe.printed, device: "best").map { ($0["time"] as? String ?? "", $0) }) { $1 }
    var compared = 0
    for tpv in throughGPSD {
      guard let time = tpv["time"] as? String, let theirs = best[time], let latitude = tpv["lat"] as? Double else { continue }
      #expect(
        abs(latitude - (theirs["lat"] as? Double ?? 0)) < 1e-7 && abs((tpv["lon"] as? Double ?? 0) - (theirs["lon"] as? Double ?? 0)) < 1e-7
      )
      #expect(tpv["mode"] as? Int == theirs["mode"] as? Int, "\(tpv) against \(theirs)")
      compared += 1
    }
    #expect(compared >= 5, "epochs compared")
    #expect(await listener.until(timeout: .seconds(60)) { listener.printed.contains("GGA=") }, "\(listener.said)")
    #expect(listener.printed.contains("RMC=") && listener.printed.contains("ZDA="), "\(listener.printed)")
  }
}
