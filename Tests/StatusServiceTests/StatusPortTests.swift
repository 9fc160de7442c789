import Foundation
import Plumbing
import StatusService
import TestHelpers
import Testing

/// The status port answers what a browser, Prometheus and a script ask, with the right types,
/// and nothing else: no file is ever read, whatever the path.
@Suite(.timeLimit(.minutes(2)))
struct StatusPortTests {
  @Test func eachPathAnswersWithItsTypeAndCachingRules() async throws {
    let box = try Box()
    let expected: [(String, String, String)] = [
      ("/", "text/html; charset=utf-8", "no-cache"),
      ("/status.json", "application/json", "no-store"),
      ("/metrics", "text/plain; version=0.0.4; charset=utf-8", "no-store"),
    ]
    for (path, type, cache) in expected {
      let response = try await HTTPExchange.get(path, port: box.port)
      #expect(response.status == 200, "\(path): \(response.head)")
      #expect(response.head.contains("Content-Type: \(type)\r\n"), "\(path): \(response.head)")
      #expect(response.head.contains("Cache-Control: \(cache)\r\n"), "\(path): \(response.head)")
      #expect(response.head.contains("Content-Length: \(response.body.utf8.count)\r\n"), "\(path): \(response.head)")
    }
    let page = try await HTTPExchange.get("/", port: box.port)
    // Everything the page needs is in it: nothing is loaded from elsewhere.
    #expect(page.head.contains("Content-Security-Policy: default-src 'none';"))
    #expect(!page.body.contains("http://") || !page.body.contains("src=\"http"))
    #expect(!page.body.contains("<link"))
  }

  /// A port in use is said with the program that holds it (this test process here), as
  /// `--listen` says it, and what to do.
  @Test func aPortInUseNamesItsHolder() async throws {
    let box = try Box()
    var configuration = StatusServer.Configuration()
    configuration.host = "127.0.0.1"
    configuration.port = box.port
    let second = StatusServer(configuration, gpsd: box.gpsd)
    let me = try String(contentsOfFile: "/proc/self/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    let failure = #expect(throws: StatusServer.StartFailure.self) { try second.start() }
    #expect(
      failure?.description
        == "Cannot serve the status page on 127.0.0.1:\(box.port): \(me) (pid \(getpid())) listens there. Stop it, or name another port with --http ADDRESS:PORT.",
      "\(String(describing: failure))")
  }

  @Test func aHeadGetsTheHeadersAlone() async throws {
    let box = try Box()
    let response = try await HTTPExchange.send("HEAD /metrics HTTP/1.1\r\nHost: box\r\nConnection: close\r\n\r\n", port: box.port)
    #expect(response.status == 200)
    #expect(response.head.contains("Content-Length: "))
    #expect(response.body.isEmpty, "\(response.body.prefix(200))")
  }

  @Test(arguments: [
    "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "//etc/passwd", "/status.json/../../../etc/passwd",
  ])
  func noPathReachesAFile(path: String) async throws {
    let box = try Box()
    let response = try await HTTPExchange.get(path, port: box.port)
    #expect(response.status == 404, "\(path): \(response.head)")
    #expect(!response.body.contains("root:"), "\(path)")
  }

  /// Python's http.client, a real HTTP/1.1 client: two requests on one kept-alive connection,
  /// and an event stream whose events are the status.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3"))
  func aRealClientKeepsItsConnectionAndFollowsTheEvents() async throws {
    let box = try Box()
    let script = """
      import http.client, json, sys
      connection = http.client.HTTPConnection("127.0.0.1", \(box.port), timeout=10)
      for path in ("/status.json", "/metrics"):
          connection.request("GET", path)
          response = connection.getresponse()
          body = response.read()
          print(path, response.status, response.getheader("Connection"), len(body))
      print("same socket", connection.sock is not None)
      connection.request("GET", "/events")
      response = connection.getresponse()
      print("events", response.status, response.getheader("Content-Type"))
      events = 0
      while events < 2:
          line = response.fp.readline().decode()
          if line.startswith("data: "):
              status = json.loads(line[6:])
              events += 1
              print("event", len(status["receivers"]), status["receivers"][0]["epochs"] >= 0)
      """
    let result = try await runProgram(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script], timeout: 30)
    #expect(result.status == 0, "\(result.output) \(result.error)")
    #expect(result.output.contains("/status.json 200 keep-alive"), "\(result.output)")
    #expect(result.output.contains("/metrics 200 keep-alive"), "\(result.output)")
    #expect(result.output.contains("events 200 text/event-stream"), "\(result.output)")
    #expect(result.output.components(separatedBy: "event 1 True").count == 3, "\(result.output)")
  }
}
