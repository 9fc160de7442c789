import Testing

@testable import StatusService

/// What the status port takes as a request, and what it refuses, byte by byte.
struct HTTPRequestReaderTests {
  static func read(_ text: String, inPiecesOf size: Int = .max) -> [Result<HTTPRequest, HTTPRefusal>] {
    var reader = HTTPRequestReader()
    var outcomes: [Result<HTTPRequest, HTTPRefusal>] = []
    let bytes = Array(text.utf8)
    var start = 0
    while start < bytes.count {
      let end = min(bytes.count, start + size)
      bytes[start..<end].withUnsafeBytes { reader.append($0) }
      start = end
      while let outcome = reader.next() {
        outcomes.append(outcome)
        if case .failure = outcome { return outcomes }
      }
    }
    return outcomes
  }

  @Test func aGetIsReadWhetherItComesWholeOrAByteAtATime() {
    let request = "GET /metrics HTTP/1.1\r\nHost: box\r\nUser-Agent: Prometheus/2.42\r\n\r\n"
    let expected = HTTPRequest(method: .get, path: "/metrics", keepsAlive: true)
    #expect(Self.read(request) == [.success(expected)])
    #expect(Self.read(request, inPiecesOf: 1) == [.success(expected)])
  }

  @Test func pipelinedRequestsAreEachAnswered() {
    let outcomes = Self.read(
      "GET / HTTP/1.1\r\nHost: a\r\n\r\nHEAD /status.json HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\nGET /x HTTP/1.0\r\n\r\n")
    #expect(
      outcomes == [
        .success(HTTPRequest(method: .get, path: "/")), .success(HTTPRequest(method: .head, path: "/status.json", keepsAlive: false)),
        .success(HTTPRequest(method: .get, path: "/x", keepsAlive: false)),
      ])
  }

  @Test func bareLineFeedsAndAQueryAreTaken() {
    #expect(Self.read("GET /status.json?pretty=1 HTTP/1.1\nHost: a\n\n") == [.success(HTTPRequest(method: .get, path: "/status.json"))])
  }

  @Test func http10KeepsAliveOnlyWhenItSaysSo() {
    #expect(
      Self.read("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n") == [.success(HTTPRequest(method: .get, path: "/", keepsAlive: true))])
  }

  @Test func percentEncodingIsDecodedAndDotsAreJustAPath() {
    #expect(Self.read("GET /metric%73 HTTP/1.1\r\nHost: a\r\n\r\n") == [.success(HTTPRequest(method: .get, path: "/metrics"))])
    // No file is ever read: ".." is a path like any other, and matches no answer.
    #expect(
      Self.read("GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n")
        == [.success(HTTPRequest(method: .get, path: "/../../etc/passwd"))])
  }

  @Test(arguments: [
    ("POST /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc", HTTPStatus.methodNotAllowed),
    ("DELETE / HTTP/1.1\r\nHost: a\r\n\r\n", .methodNotAllowed),
    ("GET / HTTP/1.1\r\n\r\n", .badRequest),
    ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello", .badRequest),
    ("GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", .badRequest),
    ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", .versionNotSupported),
    ("GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n", .badRequest),
    ("GET /%00 HTTP/1.1\r\nHost: a\r\n\r\n", .badRequest),
    ("GET /%ff HTTP/1.1\r\nHost: a\r\n\r\n", .badRequest),
    ("GET http://evil/ HTTP/1.1\r\nHost: a\r\n\r\n", .badRequest),
    ("GET / HTTP/1.1\r\nHost a\r\n\r\n", .badRequest),
    ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", .badRequest),
    ("\u{1}\u{2}garbage\u{ff}\r\n\r\n", .badRequest),
    ("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", .badRequest),
  ])
  func whatIsNoGetOrHeadIsRefusedWithItsStatus(request: String, status: HTTPStatus) {
    let outcomes = Self.read(request)
    guard case .failure(let refusal) = outcomes.last else {
      Issue.record("\(request.debugDescription) was taken: \(outcomes)")
      return
    }
    #expect(refusal.status == status, "\(request.debugDescription): \(refusal)")
  }

  @Test func aHeadOver8KiBIsRefusedWithoutKeepingMore() {
    let long = "GET / HTTP/1.1\r\nHost: a\r\nX-Long: " + String(repeating: "a", count: 9000) + "\r\n\r\n"
    guard case .failure(let refusal) = Self.read(long, inPiecesOf: 512).last else {
      Issue.record("taken")
      return
    }
    #expect(refusal.status == .headersTooLarge)
    // A line that never ends is refused as soon as it passes the limit, not when it ends.
    var reader = HTTPRequestReader()
    let endless = [UInt8](repeating: UInt8(ascii: "a"), count: HTTPRequestReader.headLimit + 1)
    endless.withUnsafeBytes { reader.append($0) }
    guard case .failure(let early) = reader.next() else {
      Issue.record("an endless line was not refused")
      return
    }
    #expect(early.status == .headersTooLarge)
  }

  @Test func anIncompleteRequestWaits() {
    var reader = HTTPRequestReader()
    Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8).withUnsafeBytes { reader.append($0) }
    #expect(reader.next() == nil)
    #expect(reader.bufferedByteCount > 0)
  }

  @Test func datesAreWrittenAsHTTPWritesThem() {
    #expect(HTTPResponse.date(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    #expect(HTTPResponse.date(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
  }
}
