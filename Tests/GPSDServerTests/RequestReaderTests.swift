import Testing

@testable import GPSDServer

/// Clients' requests as clients really send them.
@Suite struct RequestReaderTests {
  static func requests(_ chunks: [String]) -> [RequestReader.Request] {
    var reader = RequestReader()
    var requests: [RequestReader.Request] = []
    for chunk in chunks {
      reader.append(Array(chunk.utf8))
      while let request = reader.next() { requests.append(request) }
    }
    return requests
  }

  static let watch = Array(#"{"enable":true,"json":true}"#.utf8)

  @Test func severalRequestsOnALineWithOrWithoutTerminators() {
    #expect(
      Self.requests(["?VERSION;?DEVICES;\n?WATCH={\"enable\":true,\"json\":true};?POLL;\r\n"]) == [
        .version, .devices, .watch(Self.watch), .poll,
      ])
    #expect(Self.requests(["?WATCH={\"enable\":true,\"json\":true}"]) == [.watch(Self.watch)])  // OpenCPN: no newline
    #expect(Self.requests(["?VERSION\n"]) == [.version])
  }

  @Test func aRequestSplitAnywhereIsTakenWhenComplete() {
    let text = "?WATCH={\"enable\":true,\"json\":true};?POLL;"
    for split in 1..<text.count {
      let index = text.index(text.startIndex, offsetBy: split)
      #expect(Self.requests([String(text[..<index]), String(text[index...])]) == [.watch(Self.watch), .poll], "split at \(split)")
    }
  }

  @Test func bracesInsideStringsDoNotEndTheObject() {
    let object = #"{"device":"/dev/{odd}\"\\","enable":true}"#
    #expect(Self.requests(["?WATCH=" + object + ";"]) == [.watch(Array(object.utf8))])
  }

  @Test func unknownRequestsAndGarbageAreUnrecognized() {
    #expect(Self.requests(["?FOO;"]) == [.unrecognized("?FOO;")])
    #expect(Self.requests(["hello\n?VERSION;"]) == [.unrecognized("hello"), .version])
    #expect(Self.requests(["?VERSION={}"]) == [.unrecognized("?VERSION={}")])
  }

  @Test func anUnterminatedRequestWaitsAndAnOverlongOneIsRefused() {
    #expect(Self.requests(["?WATCH={\"enable\":tr"]) == [])
    #expect(Self.requests(["?WATCH={\"x\":\"" + String(repeating: "a", count: 9000)]) == [.tooLong])
    let line = String(repeating: "z", count: 9000) + "\n"
    let requests = Self.requests([line, "?POLL;"])
    #expect(requests.count == 2 && requests.last == .poll)
    if case .unrecognized(let echo) = requests.first { #expect(echo.count == RequestReader.maximumEcho) }
  }
}

@Suite struct WatchPolicyTests {
  static func change(_ text: String) throws -> WatchPolicy.Change {
    try WatchPolicy.change(from: Array(text.utf8))
  }

  @Test func enableDefaultsToTrueAndStreamsPersist() throws {
    var policy = WatchPolicy()
    policy = policy.applying(try Self.change(#"{"json":true,"scaled":true,"device":"/dev/x"}"#))
    #expect(policy.enable && policy.json && policy.scaled && policy.device == "/dev/x")
    policy = policy.applying(try Self.change(#"{"nmea":true}"#))
    // json persists; scaled and device go back to their defaults.
    #expect(policy.enable && policy.json && policy.nmea && !policy.scaled && policy.device == nil)
    policy = policy.applying(try Self.change(#"{"enable":false}"#))
    #expect(!policy.enable && policy.json && policy.nmea)
  }

  @Test func whatEachClientGets() {
    var policy = WatchPolicy()
    policy.enable = true
    #expect(policy.wantsReports && !policy.wantsSentences)  // ?WATCH={"enable":true}: JSON
    policy.nmea = true
    #expect(!policy.wantsReports && policy.wantsSentences)
    policy.raw = 2
    #expect(policy.wantsBytes)
  }

  @Test func aBadObjectSaysWhy() {
    #expect(throws: WatchPolicy.Invalid.self) { try Self.change(#"{"enable":"yes"}"#) }
    #expect(throws: WatchPolicy.Invalid.self) { try Self.change("not json") }
  }
}
