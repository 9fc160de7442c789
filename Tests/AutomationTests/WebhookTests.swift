import Automation
import Foundation
import GPSLocation
import Plumbing
import TestHelpers
import Testing

/// `--webhook` against a small Python HTTP server: an event the server fails twice arrives once
/// it answers 200, with the same idempotency key each time; every event arrives once and in
/// order; a URL that redirects in a loop or never answers is said and never holds the run up.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct WebhookTests {
  static let python = "/usr/bin/python3"

  struct Request: Decodable {
    var n: Int
    var status: Int
    var key: String?
    var body: String
  }

  final class Receiver: @unchecked Sendable {
    let process = Process()
    let log: URL
    let port: Int
    private let watch: FileChanges

    /// A receiver answering as `mode` says; over https when given a certificate and its key.
    init(mode: String, in directory: URL, port: Int = FakeGPSD.freePort(), tls: (certificate: String, key: String)? = nil) throws {
      self.port = port
      log = directory.appendingPathComponent("webhook-\(mode).jsonl")
      process.executableURL = URL(fileURLWithPath: WebhookTests.python)
      process.arguments =
        [
          URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/webhook-receiver.py").path,
          "\(port)", log.path, mode,
        ] + (tls.map { [$0.certificate, $0.key] } ?? [])
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      _ = FileManager.default.createFile(atPath: log.path, contents: nil)
      watch = FileChanges([log])
      try process.run()
      waitUntilListening(port: port)
    }

    /// Waits until `condition` holds, looking again at each request noted.
    func until(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
      await watch.until(timeout: timeout, condition)
    }

    var requests: [Request] {
      ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
        try? JSONDecoder().decode(Request.self, from: Data($0.utf8))
      }
    }

    func stop() {
      kill(process.processIdentifier, SIGKILL)
      process.waitForExit()
    }

    deinit { stop() }
  }

  /// An event's own fields, as `--json` prints them: the body after the webhook's `id` and
  /// `device`.
  static func event(_ body: String) -> String {
    guard let device = body.range(of: #""device":""#), let end = body[device.upperBound...].range(of: #"","#) else { return body }
    return "{" + body[end.upperBound...]
  }

  /// A scratch directory holding the demo drive, and a receiver in it answering as `mode`
  /// (over https with a private CA's certificate when `tls`); `remove()` takes both away.
  struct Scene {
    let directory: URL
    let receiver: Receiver
    let capture: String
    let home: String
    /// The private CA's file, with `tls`.
    let authority: String?

    init(_ mode: String, tls: Bool = false) async throws {
      directory = scratchDirectory("webhook-\(mode)-\(UUID().uuidString.prefix(8))")
      let certificates = tls ? try await WebhookTests.privateCA(in: directory) : nil
      authority = certificates?.ca
      receiver = try Receiver(mode: mode, in: directory, tls: certificates.map { ($0.certificate, $0.key) })
      (capture, home) = try await BrokerTests.drive(in: directory)
    }

    /// The receiver's URL at `path`.
    func url(_ path: String = "/hook", host: String = "127.0.0.1") -> String {
      "\(authority == nil ? "http" : "https")://\(host):\(receiver.port)\(path)"
    }

    /// The main job replaying the drive at `speed` with its home region, as JSON, and `more`.
    func run(speed: String, _ more: [String]) throws -> RunningProgram {
      try RunningProgram(["--replay", capture, "--speed", speed, "--region", home, "--json"] + more, in: directory, keepsOutput: true)
    }

    func remove() {
      receiver.stop()
      try? FileManager.default.removeItem(at: directory)
    }
  }

  /// libcurl (with OpenSSL and the rest, 8.5 MB) is loaded at the first post: a program with
  /// `--webhook` that has nothing to post maps none of it, and one that posts does.
  @Test func libcurlIsLoadedAtTheFirstPostNotBefore() async throws {
    let scene = try await Scene("ok")
    defer { scene.remove() }
    // What the program has mapped (read to its end: a /proc file says it is empty).
    func maps(_ run: RunningProgram) -> String {
      let file = FileHandle(forReadingAtPath: "/proc/\(run.process.processIdentifier)/maps")
      defer { try? file?.close() }
      return String(decoding: (try? file?.readToEnd()) ?? Data(), as: UTF8.self)
    }
    func mapsLibcurl(_ run: RunningProgram) -> Bool { maps(run).contains("libcurl") }
    // Real time: the drive's first locations come long before its first region event.
    let run = try scene.run(speed: "1", ["--webhook", scene.url()])
    defer { run.stop() }
    #expect(await run.until { run.printed.contains("didUpdateLocations") }, "\(run.said)")
    #expect(maps(run).contains("gpsbridge") && !mapsLibcurl(run))
    #expect(scene.receiver.requests.isEmpty)
    let posting = try scene.run(speed: "20", ["--webhook", scene.url()])
    defer { posting.stop() }
    #expect(await posting.until(timeout: .seconds(90)) { !scene.receiver.requests.isEmpty }, "\(posting.said)")
    #expect(mapsLibcurl(posting), "\(posting.said)")
  }

  /// A libcurl that is there but cannot be loaded (here a file that is no library, found first
  /// on `LD_LIBRARY_PATH`): the loader's reason is said once, at the first event, and no event
  /// is tried again for a failure that cannot go away.
  @Test func aLibcurlThatCannotBeLoadedIsSaidOnceAndNotRetried() async throws {
    let scene = try await Scene("ok")
    defer { scene.remove() }
    let broken = scene.directory.appendingPathComponent("broken-libs")
    try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
    for name in ["libcurl.so.4", "libcurl-gnutls.so.4"] {
      try Data("not a library".utf8).write(to: broken.appendingPathComponent(name))
    }
    let run = try RunningProgram(
      ["--replay", scene.capture, "--speed", "max", "--region", scene.home, "--json", "--webhook", scene.url()], in: scene.directory,
      environment: ["LD_LIBRARY_PATH": broken.path], keepsOutput: true)
    defer { run.stop() }
    #expect(await run.ended(within: .seconds(90)), "\(run.said)")
    let said = run.said
    #expect(said.components(separatedBy: "could not be loaded for webhooks").count == 2, "\(said)")
    #expect(!said.contains("trying again"), "\(said)")
    #expect(scene.receiver.requests.isEmpty)
  }

  @Test func eachEventArrivesOnceInOrderAndARetryKeepsItsKey() async throws {
    let scene = try await Scene("flaky")
    defer { scene.remove() }
    let receiver = scene.receiver
    let run = try scene.run(speed: "20", ["--visits", "--visit-dwell", "20", "--webhook", scene.url("/api/webhook/secret-id")])
    defer { run.stop() }
    #expect(await run.ended(within: .seconds(90)), "\(run.said)")
    #expect(run.exitStatus == 0, "\(run.said)")
    let printed = BrokerTests.regionEvents(run.printed.split(separator: "\n").map(String.init))
    #expect(printed.count >= 4, "\(printed)")
    let requests = receiver.requests
    // The first event was answered 500 twice, then taken: three tries, one key.
    #expect(requests.prefix(3).map(\.status) == [500, 500, 200], "\(requests.map(\.status))")
    #expect(Set(requests.prefix(3).map(\.key)).count == 1 && requests.first?.key != nil)
    // Once each, in order.
    let delivered = requests.filter { $0.status == 200 }
    #expect(delivered.map { Self.event($0.body) } == printed)
    #expect(Set(delivered.map(\.key)).count == delivered.count)
    #expect(run.said.contains("gpsbridge: webhook http://127.0.0.1:\(receiver.port)/…: HTTP 500; trying again"), "\(run.said)")
    #expect(run.said.contains("\(printed.count) events delivered, 2 retries, 0 given up"), "\(run.said)")
    #expect(!run.said.contains("secret-id"))
  }

  /// With `--state-dir`, a region event's body says when the crossing happened (the fix's time)
  /// and carries the monitor's event id, in its key too: the same after a restart.
  @Test func aKeptRegionsEventSaysItsTimeAndItsKeyIsTheEvents() async throws {
    let scene = try await Scene("ok")
    defer { scene.remove() }
    let state = scene.directory.appendingPathComponent("state").path
    // At 20 times real time, as the other webhook runs: at --speed max a loaded machine ends
    // the replay (and cancels the sender) before the last event is sent.
    let run = try scene.run(speed: "20", ["--state-dir", state, "--webhook", scene.url()])
    defer { run.stop() }
    #expect(await run.ended(within: .seconds(90)), "\(run.said)")
    #expect(run.exitStatus == 0, "\(run.said)")
    let delivered = scene.receiver.requests.filter { $0.status == 200 }
    #expect(!delivered.isEmpty)
    for request in delivered {
      let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
      let eventID = try #require(body["eventID"] as? Int, "\(request.body)")
      #expect((body["time"] as? String)?.hasPrefix("2024-") == true, "\(request.body)")
      #expect(request.key == "gpsbridge-\(scene.capture)-event-\(eventID)" && body["id"] as? String == request.key)
    }
  }

  /// With `--state-dir`, a region event is forgotten only once the webhook has it: a run that
  /// ends while the receiver is down leaves its events unsent (status 1), and the next run
  /// delivers them first, with the keys they had.
  @Test func aKeptRegionsEventTheReceiverNeverGotGoesAtTheNextStartWithItsKey() async throws {
    let directory = scratchDirectory("webhook-kept-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let (capture, home) = try await BrokerTests.drive(in: directory)
    let port = FakeGPSD.freePort()
    let arguments = [
      "--replay", capture, "--speed", "max", "--region", home, "--json", "--state-dir", directory.appendingPathComponent("state").path,
      "--webhook", "http://127.0.0.1:\(port)/hook",
    ]
    // Nothing listens: the sender is still trying when the replay ends.
    let down = try RunningProgram(arguments, in: directory, keepsOutput: true)
    defer { down.stop() }
    #expect(await down.ended(within: .seconds(90)), "\(down.said)")
    #expect(down.exitStatus == 1 && down.said.contains("never delivered"), "\(down.said)")
    let unsent = BrokerTests.regionEvents(down.printed.split(separator: "\n").map(String.init))
    #expect(unsent.count == 2, "\(unsent)")

    let receiver = try Receiver(mode: "ok", in: directory, port: port)
    defer { receiver.stop() }
    let up = try RunningProgram(arguments, in: directory, keepsOutput: true)
    defer { up.stop() }
    #expect(await up.ended(within: .seconds(90)), "\(up.said)")
    #expect(up.exitStatus == 0, "\(up.said)")
    let delivered = receiver.requests.filter { $0.status == 200 }
    #expect(Array(delivered.prefix(2).map { Self.event($0.body) }) == unsent.map { Self.withoutID($0) }, "\(delivered.map(\.body))")
    let ids = unsent.compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? Int
    }
    #expect(delivered.prefix(2).map(\.key) == ids.map { "gpsbridge-\(capture)-event-\($0)" }, "\(delivered.map(\.key))")
  }

  /// The event being sent is not in the queue: a full queue (of one) making room drops the
  /// one waiting, never the one in flight, and the newest is sent after it, each said handled
  /// once it is delivered.
  @Test func aFullQueueDropsTheOneWaitingNotTheOneBeingSent() async throws {
    let directory = scratchDirectory("webhook-in-flight-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try Receiver(mode: "slow", in: directory)
    defer { receiver.stop() }
    var configuration = WebhookSender.Configuration(url: try #require(WebhookURL(string: "http://127.0.0.1:\(receiver.port)/hook")))
    configuration.queueLimit = 1
    let sender = try WebhookSender(configuration)
    let running = Task { await sender.run() }
    defer { running.cancel() }
    func visit(_ minute: Double) -> LocationManager.Action {
      .didVisit(
        Visit(
          coordinate: LocationCoordinate2D(latitude: 47, longitude: 8), horizontalAccuracy: 5,
          arrivalDate: Date(timeIntervalSince1970: 1_714_550_400 + minute * 60)))
    }
    let handled = Locked<[Int]>([])
    func event(_ id: UInt64) -> MonitorEvent { MonitorEvent(id: id, identifier: "", state: .unknown, date: nil) }
    sender.take([visit(1)], device: "a", of: event(1)) { handled.withLock { $0.append(1) } }
    // The first is being sent (the receiver holds its answer 8 s) when two more come.
    #expect(await receiver.until { receiver.requests.contains { $0.status == 0 } })
    sender.take([visit(2)], device: "a", of: event(2)) { handled.withLock { $0.append(2) } }
    sender.take([visit(3)], device: "a", of: event(3)) { handled.withLock { $0.append(3) } }
    #expect(sender.statistics.dropped == 1 && sender.statistics.queued == 2)
    #expect(await receiver.until(timeout: .seconds(60)) { receiver.requests.filter { $0.status == 200 }.count == 2 })
    let arrivals = receiver.requests.filter { $0.status == 200 }.map {
      $0.body.contains("08:01:00") ? 1 : $0.body.contains("08:03:00") ? 3 : 0
    }
    #expect(arrivals == [1, 3], "\(receiver.requests.map(\.body))")
    // The dropped one is out of the sender's hands too: handled when dropped, in that order.
    #expect(await eventually(timeout: .seconds(10), every: .milliseconds(50)) { handled.withLock { $0 } == [2, 1, 3] })
    #expect(sender.statistics.delivered == 2 && sender.statistics.queued == 0)
  }

  /// A `--json` line of a monitor's event as a webhook body says it: `"eventID"` for `"id"`
  /// (the body's `id` is the key).
  static func withoutID(_ line: String) -> String {
    guard let range = line.range(of: #","id":"#) else { return line }
    return line.replacingCharacters(in: range, with: #","eventID":"#)
  }

  @Test(arguments: [("redirect", "it redirects in a loop"), ("silent", "no answer in time")])
  func aWebhookThatLoopsOrNeverAnswersIsSaidAndHoldsNothingUp(mode: String, said: String) async throws {
    let scene = try await Scene(mode)
    defer { scene.remove() }
    let run = try scene.run(speed: "10", ["--webhook", scene.url()])
    defer { run.stop() }
    #expect(await run.until(timeout: .seconds(60)) { run.said.contains(said) }, "\(run.said)")
    // The run goes on to the capture's end, and ends by itself: with status 1, since its
    // events were never delivered; the cause said once, not once an event.
    #expect(await run.ended(within: .seconds(90)), "\(run.said)")
    #expect(run.exitStatus == 1 && run.printed.contains(#""code":"endOfCapture""#), "\(run.said)")
    #expect(run.said.contains("were never delivered (the lines above say why)."), "\(run.said)")
    #expect(run.said.components(separatedBy: said).count - 1 == 1, "\(run.said)")
  }

  /// A private CA and a certificate it signed for localhost and 127.0.0.1, made by openssl in
  /// `directory`: the CA's file, the server's certificate and key.
  static func privateCA(in directory: URL) async throws -> (ca: String, certificate: String, key: String) {
    let path = { (name: String) in directory.appendingPathComponent(name).path }
    let openssl = URL(fileURLWithPath: installed("openssl") ?? "/usr/bin/openssl")
    let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: path("ext"), atomically: true, encoding: .utf8)
    for arguments in [
      ["req", "-x509"] + curve + ["-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=gpsbridge test CA"],
      ["req"] + curve + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost"],
      [
        "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial", "-out",
        path("server.pem"), "-days", "2", "-extfile", path("ext"),
      ],
    ] {
      let made = try await runProgram(openssl, arguments)
      #expect(made.status == 0, "openssl \(arguments.joined(separator: " ")): \(made.error)")
    }
    return (path("ca.pem"), path("server.pem"), path("server.key"))
  }

  /// https to a receiver whose certificate a private CA signed: delivered with `--webhook-ca`,
  /// and said (not trusted, never delivered) without it.
  @Test func httpsIsDeliveredWithThePrivateCAAndRefusedWithoutIt() async throws {
    let scene = try await Scene("ok", tls: true)
    defer { scene.remove() }
    let receiver = scene.receiver
    let url = scene.url(host: "localhost")
    let trusted = try scene.run(speed: "20", ["--webhook", url, "--webhook-ca", scene.authority!])
    defer { trusted.stop() }
    #expect(await trusted.ended(within: .seconds(60)), "\(trusted.said)")
    let printed = BrokerTests.regionEvents(trusted.printed.split(separator: "\n").map(String.init))
    #expect(!printed.isEmpty && receiver.requests.map { Self.event($0.body) } == printed, "\(trusted.said)")
    #expect(trusted.said.contains("\(printed.count) events delivered, 0 retries, 0 given up"), "\(trusted.said)")

    let untrusted = try scene.run(speed: "20", ["--webhook", url])
    defer { untrusted.stop() }
    #expect(await untrusted.until(timeout: .seconds(60)) { untrusted.said.contains("its certificate is not trusted") }, "\(untrusted.said)")
    untrusted.stop()
    #expect(receiver.requests.count == printed.count, "nothing more reached the receiver")
  }

  /// An answer's body is never read whole: a 2xx that sends 1 GB, or a chunked body that never
  /// ends, delivers the event at once, and the program's memory stays small.
  @Test(arguments: ["huge", "endless"])
  func anAnswersBodyIsNeverReadWhole(mode: String) async throws {
    let scene = try await Scene(mode)
    defer { scene.remove() }
    let receiver = scene.receiver
    let run = try scene.run(speed: "20", ["--webhook", scene.url()])
    defer { run.stop() }
    // Its high-water mark, read while waiting for it to end: the last reading before it ends
    // holds every delivery but (perhaps) the last one's.
    var peak = 0
    let ended = await eventually(timeout: .seconds(60)) {
      peak = max(peak, Self.peakResidentKilobytes(of: run.process.processIdentifier) ?? 0)
      return !run.process.isRunning
    }
    #expect(ended, "\(run.said)")
    let printed = BrokerTests.regionEvents(run.printed.split(separator: "\n").map(String.init))
    #expect(!printed.isEmpty && receiver.requests.map { Self.event($0.body) } == printed, "\(run.said)")
    #expect(run.said.contains("\(printed.count) events delivered, 0 retries, 0 given up"), "\(run.said)")
    #expect(peak > 0 && peak < 40_000, "peak RSS \(peak) kB")
  }

  /// Waiting for a receiver that takes 8 s to answer costs no CPU: nothing spins.
  @Test func aSlowAnswerIsWaitedForWithoutSpinning() async throws {
    let scene = try await Scene("slow")
    defer { scene.remove() }
    let receiver = scene.receiver
    let run = try scene.run(speed: "4", ["--webhook", scene.url()])
    defer { run.stop() }
    #expect(await receiver.until(timeout: .seconds(60)) { receiver.requests.first?.body == "waiting" }, "\(run.said)")
    // Measured over the receiver's wait, from its first word to its answer (noted just before
    // it is sent: the program still waits for it then).
    let pid = run.process.processIdentifier
    let (before, start) = (try #require(Self.cpuTicks(of: pid)), ContinuousClock.now)
    #expect(await receiver.until(timeout: .seconds(60)) { receiver.requests.contains { $0.status == 200 } }, "\(run.said)")
    let (after, waited) = (try #require(Self.cpuTicks(of: pid)), start.duration(to: .now))
    // Under 5 % of a core over the wait (8 s), with the replay of 4 epochs a second going on.
    let seconds = Double(after - before) / Double(sysconf(Int32(_SC_CLK_TCK)))
    #expect(waited > .seconds(5) && seconds < 0.05 * (waited / .seconds(1)), "\(seconds) s of CPU in \(waited)")
  }

  /// The peak resident memory of process `pid` (`VmHWM`), in kilobytes.
  static func peakResidentKilobytes(of pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return nil }
    return Int(line.split(separator: " ").dropFirst().first ?? "")
  }

  /// The user and system CPU time of process `pid` so far, in clock ticks.
  static func cpuTicks(of pid: Int32) -> Int? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    else { return nil }
    // After the command's name: state is field 3, utime 14 and stime 15.
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
    return user + system
  }
}
