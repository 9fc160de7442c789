import GPSD
import TestHelpers
import Testing

/// Clients' requests as clients really send them.
@Suite struct GPSDRequestReaderTests {
  static func outputs(_ chunks: [String]) -> [GPSDRequestReader.Output] {
    var reader = GPSDRequestReader()
    var outputs: [GPSDRequestReader.Output] = []
    for chunk in chunks {
      reader.append(Array(chunk.utf8))
      while let output = reader.next() { outputs.append(output) }
    }
    return outputs
  }

  static let watch = GPSDWatch.Change(enable: true, json: true)

  @Test func severalRequestsOnALineWithOrWithoutTerminators() {
    #expect(
      Self.outputs(["?VERSION;?DEVICES;\n?WATCH={\"enable\":true,\"json\":true};?POLL;\r\n"]) == [
        .request(.version), .request(.devices), .request(.watch(Self.watch)), .request(.poll),
      ])
    #expect(Self.outputs(["?WATCH={\"enable\":true,\"json\":true}"]) == [.request(.watch(Self.watch))])  // OpenCPN: no newline
    #expect(Self.outputs(["?VERSION\n"]) == [.request(.version)])
  }

  @Test func requestsReadTheSameHoweverTheyAreSplit() {
    let text = "?WATCH={\"enable\":true,\"json\":true,\"device\":\"/dev/{x}\"};?POLL;hello\n?DEVICE={\"path\":\"/dev/x\"}?VERSION;"
    let (failures, reference) = DecoderVerifier.verify({ GPSDRequestReader() }, Array(text.utf8))
    #expect(failures.isEmpty, "\(failures)")
    #expect(reference.outputs.count == 5)
  }

  /// What a client writes is what the reader reads back.
  @Test(arguments: [
    GPSDRequest.version, .devices, .poll, .watch(nil), .watchReports(), .watchSentences(device: "/dev/ttyACM0"), .unwatch,
    .watch(GPSDWatch.Change(enable: true, json: false, nmea: false, raw: 2, scaled: true, split24: true, pps: true, timing: true)),
    .device(nil), .device(#"{"path":"/dev/ttyUSB0"}"#),
  ])
  func everyRequestRoundTrips(_ request: GPSDRequest) {
    #expect(Self.outputs([request.line]) == [.request(request)])
  }

  @Test func bracesInsideStringsDoNotEndTheObject() {
    #expect(
      Self.outputs([#"?WATCH={"device":"/dev/{odd}\"\\","enable":true};"#]) == [
        .request(.watch(GPSDWatch.Change(enable: true, device: #"/dev/{odd}"\"#)))
      ])
  }

  @Test func unknownRequestsAndGarbageAreUnrecognized() {
    #expect(Self.outputs(["?FOO;"]) == [.unrecognized("?FOO;")])
    #expect(Self.outputs(["hello\n?VERSION;"]) == [.unrecognized("hello"), .request(.version)])
    #expect(Self.outputs(["?VERSION={}"]) == [.unrecognized("?VERSION={}")])
  }

  @Test func aBadWatchSaysWhy() {
    #expect(Self.outputs([#"?WATCH={"enable":"yes"};"#]) == [.invalid("Invalid WATCH: bad value for enable")])
    #expect(Self.outputs([#"?WATCH={not json};"#]) == [.invalid("Invalid WATCH: not a JSON object")])
  }

  @Test func anUnterminatedRequestWaitsAndAnOverlongOneIsRefused() {
    #expect(Self.outputs(["?WATCH={\"enable\":tr"]) == [])
    #expect(Self.outputs(["?WATCH={\"x\":\"" + String(repeating: "a", count: 9000)]) == [.tooLong])
    let line = String(repeating: "z", count: 9000) + "\n"
    let outputs = Self.outputs([line, "?POLL;"])
    #expect(outputs.count == 2 && outputs.last == .request(.poll))
    if case .unrecognized(let echo) = outputs.first { #expect(echo.count == GPSDRequestReader.maximumEcho) }
  }
}

@Suite struct GPSDWatchTests {
  static func change(_ text: String) throws -> GPSDWatch.Change {
    try GPSDWatch.Change(json: Array(text.utf8))
  }

  @Test func enableDefaultsToTrueAndStreamsPersist() throws {
    var watch = GPSDWatch()
    watch = watch.applying(try Self.change(#"{"json":true,"scaled":true,"device":"/dev/x"}"#))
    #expect(watch.enable && watch.json && watch.scaled && watch.device == "/dev/x")
    watch = watch.applying(try Self.change(#"{"nmea":true}"#))
    // json persists; scaled and device go back to their defaults.
    #expect(watch.enable && watch.json && watch.nmea && !watch.scaled && watch.device == nil)
    watch = watch.applying(try Self.change(#"{"enable":false}"#))
    #expect(!watch.enable && watch.json && watch.nmea)
  }

  @Test func whatEachClientGets() {
    var watch = GPSDWatch(enable: true)
    #expect(watch.wantsReports && !watch.wantsSentences)  // ?WATCH={"enable":true}: JSON
    watch.nmea = true
    #expect(!watch.wantsReports && watch.wantsSentences)
    watch.raw = 2
    #expect(watch.wantsBytes)
  }

  @Test func theWatchReportRoundTrips() throws {
    let watch = GPSDWatch(enable: true, json: true, raw: 1, device: "/dev/ttyACM0")
    #expect(try GPSDReport(line: Array(GPSDReport.watch(watch).line.utf8)) == .watch(watch))
    // gpsbridge's own settings too, said back only when asked for.
    let extended = GPSDWatch(enable: true, json: true, regions: true, integrity: true)
    #expect(GPSDReport.watch(extended).line.contains(#""regions":true,"integrity":true"#))
    #expect(try GPSDReport(line: Array(GPSDReport.watch(extended).line.utf8)) == .watch(extended))
  }

  /// `integrity`, like `regions` and `json`, stays as the last request set it; INTEGRITY
  /// objects go only to JSON watchers that asked.
  @Test func integrityStaysAsTheLastRequestSetIt() throws {
    var watch = GPSDWatch().applying(try GPSDWatch.Change(json: Array(#"{"enable":true,"json":true,"integrity":true}"#.utf8)))
    #expect(watch.wantsIntegrity)
    watch = watch.applying(try GPSDWatch.Change(json: Array(#"{"device":"/dev/ttyACM0"}"#.utf8)))
    #expect(watch.wantsIntegrity && watch.device == "/dev/ttyACM0")
    watch = watch.applying(try GPSDWatch.Change(json: Array(#"{"enable":false}"#.utf8)))
    #expect(!watch.wantsIntegrity)
    #expect(!GPSDWatch(enable: true, json: false, nmea: true, integrity: true).wantsIntegrity)
  }
}

/// The request reader as the shared decoder verifier sees it.
extension GPSDRequestReader: VerifiableDecoder {
  public mutating func nextOutput() -> Output? { next() }
  public mutating func finish() {}
}
