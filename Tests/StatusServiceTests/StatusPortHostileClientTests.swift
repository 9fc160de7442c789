import Foundation
import Plumbing
import StatusService
import TestHelpers
import Testing

/// The status port gets the gpsd port's hostile clients: whatever they do, gpsd's clients and
/// the receiver go on, every refused client reads why rather than a reset, and nothing grows
/// without bound.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct StatusPortHostileClientTests {
  @Test func garbageIsAnsweredBadRequestAndClosed() async throws {
    let box = try Box()
    let response = try await HTTPExchange.send("\u{1}\u{2}\u{3}garbage\u{ff}\u{fe}\r\n\r\nmore", port: box.port)
    #expect(response.status == 400, "\(response.head)")
    #expect(box.status.httpStatisticsForTesting.dropped == 1)
    #expect(try await HTTPExchange.get("/status.json", port: box.port).status == 200)
  }

  @Test func aHeadOverEightKiBIsRefused() async throws {
    let box = try Box()
    let request = "GET / HTTP/1.1\r\nHost: box\r\nCookie: " + String(repeating: "x", count: 20_000) + "\r\n\r\n"
    let response = try await HTTPExchange.send(request, port: box.port)
    #expect(response.status == 431, "\(response.head)")
  }

  /// Connections that never ask anything, as many as there are slots, give way to a newcomer
  /// at once: the one idle longest is told why and closed (they held every slot for their
  /// idle time-out, and the page answered 503 meanwhile).
  @Test func idleConnectionsGiveWayWhenTheSlotsAreFull() async throws {
    let box = try Box { $0.maximumClients = 4 }
    let idle = try (0..<4).map { _ in try FileDescriptor.connectTCP(host: "127.0.0.1", port: box.port) }
    defer { for socket in idle { try? socket.close() } }
    #expect(await eventually { box.status.httpStatisticsForTesting.clients == 4 })
    let response = try await HTTPExchange.get("/metrics", port: box.port)
    #expect(response.status == 200, "\(response.head)")
    let told = try await offThePool { HTTPExchange.readUntilClosed(idle[0], seconds: 10) }
    #expect(told.hasPrefix("HTTP/1.1 503 ") && told.contains("Closed to make room for another client"), "\(told)")
  }

  /// 64 clients dribbling a request that never ends (a byte each just before every scrape)
  /// hold every slot for a moment, then are answered 408 and closed; a scraper that comes
  /// along is served, and gpsd's clients never notice.
  @Test func slowlorisHoldsNothing() async throws {
    let box = try Box { $0.requestTimeout = .seconds(1) }
    let epochsBefore = try await box.epochs()
    let slow = try (0..<64).map { _ in try FileDescriptor.connectTCP(host: "127.0.0.1", port: box.port) }
    defer { for socket in slow { try? socket.close() } }
    for socket in slow { try HTTPExchange.sendAll(Array("GET / HTTP/1.1\r\nHo".utf8), on: socket) }
    #expect(
      try await eventually(every: .milliseconds(500)) {
        for socket in slow { _ = try? Array("s".utf8).withUnsafeBytes { raw throws(Errno) in try socket.sendSome(raw) } }
        return try await HTTPExchange.get("/metrics", port: box.port).status == 200
      })
    let told = try await offThePool { HTTPExchange.readUntilClosed(slow[0], seconds: 10) }
    #expect(told.hasPrefix("HTTP/1.1 408 ") || told.hasPrefix("HTTP/1.1 503 "), "\(told)")
    // The receiver went on all along.
    #expect(await eventually(every: .milliseconds(200)) { ((try? await box.epochs()) ?? 0) > epochsBefore + 2 })
  }

  /// A thousand connections at once, from another process, to `serve` run as a program (so
  /// this test process holds none of the thousand descriptors: Foundation's Process.run, which
  /// other tests call meanwhile, has crashed reading a long /proc/self/fd): at most 64 are
  /// kept, the others read 503 and go, and a gpsd client is served the whole time.
  @Test(.enabled(if: gpspipe != nil, "gpspipe is not installed (Debian: gpsd-clients)"))
  func aThousandConnectionsAreBoundedAndGPSDClientsGoOn() async throws {
    let directory = scratchDirectory("box-thousand-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: directory) }
    let fixture = fixturesDirectory.appendingPathComponent("sirf-nmea22-1hz.nmea").path
    let (gpsdPort, httpPort) = (FakeGPSD.freePort(), FakeGPSD.freePort())
    let serve = try RunningProgram(
      ["serve", "--replay", fixture, "--loop", "--speed", "4", "--listen", "127.0.0.1:\(gpsdPort)", "--http", "\(httpPort)"],
      in: directory)
    defer { serve.stop() }
    #expect(await serve.serving(), "\(serve.said)")
    // Python opens the thousand and holds them while this test looks: until the test opens
    // `release`, a pipe Python then reads to its end.
    let release = directory.appendingPathComponent("release").path
    #expect(mkfifo(release, 0o600) == 0)
    let script = """
      import socket, sys
      sockets = []
      for _ in range(1000):
          s = socket.create_connection(("127.0.0.1", \(httpPort)), timeout=10)
          sockets.append(s)
      first = sockets[0].recv(4096).decode(errors="replace").split("\\r\\n")[0]
      sockets[-1].sendall(b"GET /metrics HTTP/1.1\\r\\nHost: box\\r\\n\\r\\n")
      last = sockets[-1].recv(4096).decode(errors="replace").split("\\r\\n")[0]
      print("opened", len(sockets), "first read:", first, "last read:", last, flush=True)
      open("\(release)").read()
      """
    let thousand = Task { try await runProgram(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script], timeout: 60) }
    // gpsd's clients are served while the thousand are held.
    let result = try await runProgram(URL(fileURLWithPath: gpspipe!), ["-w", "-n", "6", "127.0.0.1:\(gpsdPort)"], timeout: 30)
    #expect(result.output.contains(#""class":"TPV""#), "\(result.output) \(result.error)")
    // Released once Python holds the thousand and waits (a writer opens only then).
    #expect(
      await eventually {
        let writer = open(release, O_WRONLY | O_NONBLOCK)
        if writer >= 0 { close(writer) }
        return writer >= 0
      })
    let opened = try await thousand.value
    // Each newcomer took the slot of the connection idle longest: the first was told why and
    // closed, the last is served.
    #expect(
      opened.output.contains("opened 1000 first read: HTTP/1.1 503 Service Unavailable last read: HTTP/1.1 200 OK"),
      "\(opened.output) \(opened.error)")
    // Once they are gone, the page is answered again: a thousand came, 64 at most were kept.
    var http: [String: Any] = [:]
    _ = await eventually(every: .milliseconds(200)) {
      let body = await fetch("/status.json", port: httpPort) ?? ""
      http = ((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any])?["http"] as? [String: Any] ?? [:]
      return (http["connections"] as? Int ?? 0) >= 1000
    }
    #expect((http["connections"] as? Int ?? 0) >= 1000, "\(http)")
    #expect((http["dropped"] as? Int ?? 0) >= 936, "\(http)")
    #expect((http["clients"] as? Int ?? .max) <= 64, "\(http)")
  }

  /// A page that never reads its event stream is closed once it has left the queue's limit
  /// unread; the others go on.
  @Test func anEventStreamNobodyReadsIsClosedNotKeptForever() async throws {
    let box = try Box(interval: .milliseconds(20)) { $0.queueLimit = 32_768 }
    let socket = try FileDescriptor.connectTCP(host: "127.0.0.1", port: box.port)
    defer { try? socket.close() }
    var small: CInt = 4096
    setsockopt(socket.rawValue, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<CInt>.size))
    try HTTPExchange.sendAll(Array("GET /events HTTP/1.1\r\nHost: box\r\n\r\n".utf8), on: socket)
    #expect(await eventually { box.status.httpStatisticsForTesting.streams == 1 })
    #expect(await eventually { box.status.httpStatisticsForTesting.dropped >= 1 }, "\(box.status.httpStatisticsForTesting)")
    #expect(box.status.httpStatisticsForTesting.streams == 0)
    #expect(try await HTTPExchange.get("/status.json", port: box.port).status == 200)
  }
}

let gpspipe = ["/usr/bin/gpspipe", "/usr/local/bin/gpspipe"].first { FileManager.default.isExecutableFile(atPath: $0) }
