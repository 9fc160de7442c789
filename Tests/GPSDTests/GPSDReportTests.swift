import Foundation
import NMEA
import Testing

@testable import GPSD

@Suite struct GPSDReportTests {
  static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/gpsd")

  static let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".jsonl") }
    .sorted()

  static func lines(_ file: String) throws -> [String] {
    try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
  }

  @Test(arguments: files)
  func everyRecordedOrDocumentedLineDecodes(_ file: String) throws {
    for line in try Self.lines(file) {
      #expect(throws: Never.self, "\(line)") { try GPSDReport(line: Array(line.utf8)) }
    }
  }

  @Test func versionBannerIsReadWhateverItsNumbers() throws {
    for (line, release) in [
      (#"{"class":"VERSION","release":"3.17","rev":"3.17","proto_major":3,"proto_minor":12}"#, "3.17"),
      (#"{"class":"VERSION","release":"3.27.1","rev":"release-3.27.1","proto_major":3,"proto_minor":16,"remote":"x"}"#, "3.27.1"),
      (#"{"class":"VERSION","release":"4.0~dev","proto_major":4,"proto_minor":0}"#, "4.0~dev"),
    ] {
      guard case .version(let version) = try GPSDReport(line: Array(line.utf8)) else {
        Issue.record("not a version: \(line)")
        continue
      }
      #expect(version.release == release)
    }
  }

  @Test func trailingCommasOfOldVersionsAreTolerated() throws {
    let line = #"{"class":"SKY","satellites":[{"PRN":3,"used":true,},{"PRN":4,"used":false},],"hdop":1.2,}"#
    guard case .sky(let sky) = try GPSDReport(line: Array(line.utf8)) else {
      Issue.record("not a SKY")
      return
    }
    #expect(sky.satellites?.map(\.prn) == [3, 4] && sky.horizontalDOP == 1.2)
    // A comma inside a string is left alone.
    guard case .error(let error) = try GPSDReport(line: Array(#"{"class":"ERROR","message":"a,]b"}"#.utf8)) else { return }
    #expect(error.message == "a,]b")
  }

  @Test func unknownClassesAreReportedAsUnknownNotErrors() throws {
    #expect(try GPSDReport(line: Array(#"{"class":"PPS","real_sec":1}"#.utf8)) == .unknown("PPS"))
  }

  @Test(arguments: [
    #"{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2023-12-31T23:59:52.000Z","ept":0.005,"lat":-33.8602"#,
    #"","mode":3}"#, "garbage", "", #"{"mode":3}"#, #"{"class":"TPV","lat":"north"}"#,
  ])
  func truncatedOrMalformedLinesAreRejected(_ line: String) {
    #expect(throws: GPSDReport.DecodingFailure.self) { try GPSDReport(line: Array(line.utf8)) }
  }

  @Test func requestsAreTheLinesGPSDExpects() {
    #expect(GPSDRequest.watchReports().line == "?WATCH={\"enable\":true,\"json\":true};\n")
    #expect(
      GPSDRequest.watchReports(device: "/dev/ttyUSB0").line == "?WATCH={\"enable\":true,\"json\":true,\"device\":\"/dev/ttyUSB0\"};\n")
    #expect(GPSDRequest.unwatch.line == "?WATCH={\"enable\":false,\"json\":false};\n")
    #expect(GPSDRequest.watchSentences().line == "?WATCH={\"enable\":true,\"json\":false,\"nmea\":true};\n")
    #expect(GPSDRequest.poll.line == "?POLL;\n")
  }
}

@Suite struct GPSDFixAssemblerTests {
  func fixes(_ file: String) throws -> [Fix] {
    var assembler = GPSDFixAssembler()
    return try GPSDReportTests.lines(file).compactMap { line in
      (try? GPSDReport(line: Array(line.utf8))).flatMap { assembler.add($0) }
    }
  }

  @Test func oldAltIsMeanSeaLevel() throws {
    let fixes = try fixes("gpsd-3.17-documented.jsonl")
    #expect(fixes.count == 2)
    let fix = try #require(fixes.first)
    #expect(fix.timestamp?.description == "2017-05-01T10:00:01.000Z")
    #expect(fix.mode == .threeD && fix.latitude == 47.3769 && fix.altitude == 410 && fix.geoidSeparation == nil)
    #expect(fix.speed == 12 && fix.course == 90 && fix.horizontalAccuracy == (7.5 * 7.5 + 9.0 * 9.0).squareRoot())
    #expect(!fixes[1].hasPosition && fixes[1].mode == FixMode.none)
  }

  @Test func newerFieldsAndTheLatestSkyGSTAndATTJoinTheFix() throws {
    let fixes = try fixes("gpsd-3.25-documented.jsonl")
    #expect(fixes.count == 1)  // the second TPV repeats the epoch
    let fix = try #require(fixes.first)
    #expect(fix.quality == .dgps && fix.altitude == 410 && fix.geoidSeparation == 47.3)
    #expect(fix.ellipsoidalAltitude == 457.3 && fix.magneticVariation == 2.8 && fix.trueHeading == 91.5)
    #expect(fix.horizontalAccuracy == 3.2 && fix.verticalAccuracy == 4.6)
    #expect(fix.satellitesUsed == 2 && fix.hdop == 0.92)
    #expect(
      fix.satellites.map { "\($0.constellation?.rawValue ?? "?")\($0.number)\($0.isUsed ? "+" : "")" } == [
        "gps5+", "glonass66+", "galileo301",
      ])
    #expect(fix.satellites.last?.snr == nil)
  }

  @Test func recordedReportsFromGPSD322() throws {
    let fixes = try fixes("gpsd-3.22-quectel-nmea411-10hz.jsonl")
    #expect(fixes.count > 10)
    #expect(fixes.filter(\.hasPosition).allSatisfy { $0.quality == .rtkFixed && $0.latitude.map { abs($0 - 52.52) < 0.01 } == true })
    // Midnight into a leap day, as the capture has it.
    #expect(fixes.contains { $0.timestamp?.date == UTCDate(year: 2024, month: 2, day: 29) })
    let times = fixes.compactMap(\.timestamp)
    #expect(Set(times).count == times.count)
  }
}

@Suite struct LineSplitterTests {
  @Test func linesSplitAcrossAppendsComeOutWhole() {
    var splitter = LineSplitter()
    var lines: [String] = []
    for chunk in ["{\"a\":", "1}\n{\"b\"", ":2}\r\n", "\n"] {
      splitter.append(Array(chunk.utf8))
      while let line = splitter.next() { lines.append(String(decoding: line, as: UTF8.self)) }
    }
    #expect(lines == ["{\"a\":1}", "{\"b\":2}", ""])
  }

  @Test func overlongLinesAreDroppedAndCountedAndMemoryStaysBounded() {
    var splitter = LineSplitter()
    var lines: [String] = []
    for _ in 0..<100 {
      splitter.append(Array(repeating: UInt8(ascii: "x"), count: 1000))
      while let line = splitter.next() { lines.append(String(decoding: line, as: UTF8.self)) }
      #expect(splitter.storage.count - splitter.start <= LineSplitter.maximumLineLength + 1000)
    }
    splitter.append(Array("\n{\"ok\":1}\n".utf8))
    while let line = splitter.next() { lines.append(String(decoding: line, as: UTF8.self)) }
    #expect(lines == ["{\"ok\":1}"] && splitter.overlongLines == 1)
  }
}
