import Foundation
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
    let port = FakeGPSD.freePort()

    init(mode: String, in directory: URL) throws {
      log = directory.appendingPathComponent("webhook-\(mode).jsonl")
      process.executableURL = URL(fileURLWithPath: WebhookTests.python)
      process.arguments = [
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/webhook-receiver.py").path, "\(port)",
        log.path, mode,
      ]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      waitUntilListening(port: port)
    }

    var requests: [Request] {
      ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
        try? JSONDecoder().decode(Request.self, from: Data($0.utf8))
      }
    }

    func stop() {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }

    deinit { stop() }
  }

  /// An event's own fields, as `--json` prints them: the body after the webhook's `id` and
  /// `device`.
  static func event(_ body: String) -> String {
    guard let device = body.range(of: #""device":""#), let end = body[device.upperBound...].range(of: #"","#) else { return body }
    return "{" + body[end.upperBound...]
  }

  @Test func eachEventArrivesOnceInOrderAndARetryKeepsItsKey() async throws {
    let directory = scratchDirectory("webhook-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try Receiver(mode: "flaky", in: directory)
    defer { receiver.stop() }
    let (capture, home) = try await BrokerTests.drive(in: directory)
    let run = try RunningProgram(
      [
        "--replay", capture, "--speed", "20", "--region", home, "--visits", "--visit-dwell", "20", "--json", "--webhook",
        "http://127.0.0.1:\(receiver.port)/api/webhook/secret-id",
      ], in: directory, keepsOutput: true)
    defer { run.stop() }
    #expect(await eventually(timeout: .seconds(90)) { !run.process.isRunning }, "\(run.said)")
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

  @Test(arguments: [("redirect", "it redirects in a loop"), ("silent", "no answer in time")])
  func aWebhookThatLoopsOrNeverAnswersIsSaidAndHoldsNothingUp(mode: String, said: String) async throws {
    let directory = scratchDirectory("webhook-\(mode)-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let receiver = try Receiver(mode: mode, in: directory)
    defer { receiver.stop() }
    let (capture, home) = try await BrokerTests.drive(in: directory)
    let run = try RunningProgram(
      ["--replay", capture, "--speed", "10", "--region", home, "--json", "--webhook", "http://127.0.0.1:\(receiver.port)/hook"],
      in: directory, keepsOutput: true)
    defer { run.stop() }
    #expect(await eventually(timeout: .seconds(60)) { run.said.contains(said) }, "\(run.said)")
    // The run goes on to the capture's end, and ends by itself.
    #expect(await eventually(timeout: .seconds(90)) { !run.process.isRunning }, "\(run.said)")
    #expect(run.exitStatus == 0 && run.printed.contains(#""code":"endOfCapture""#), "\(run.said)")
  }
}
