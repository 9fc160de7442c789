import Foundation
import NMEA
import TestHelpers
import Testing

@testable import GPSD

/// gpsd's byte stream as untrusted input: every line dropped is counted by why, and nothing
/// implausible becomes a fix.
@Suite struct GPSDStreamDecoderTests {
  static func tpv(_ fields: String, second: Int = 0) -> String {
    #"{"class":"TPV","mode":3,"time":"2024-05-01T08:00:\#(String(100 + second).dropFirst()).000Z","lat":47.37,"lon":8.54,"alt":410.0,\#(fields)}"#
  }

  static func decode(_ text: String, finished: Bool = false) -> (fixes: [Fix], counters: GPSDStreamDecoder.Counters) {
    var decoder = GPSDStreamDecoder()
    decoder.append(Array(text.utf8))
    if finished { decoder.finish() }
    var fixes: [Fix] = []
    while let output = decoder.next() { if case .fix(let fix) = output { fixes.append(fix) } }
    return (fixes, decoder.counters)
  }

  @Test func everyRejectedLineIsCountedByWhy() {
    let lines = [
      Self.tpv(#""speed":1.0"#, second: 1),
      "garbage \u{1}\u{2} not json",
      #"{"class":"TPV","mode":3,"lat":"#,  // cut short
      #"{"mode":3}"#,  // no class
      #"{"class":"TPV","mode":"three"}"#,  // a field of the wrong type
      Self.tpv(#""altHAE":1e300"#, second: 2),
      Self.tpv(#""speed":-3.0"#, second: 3),
      #"{"class":"TPV","mode":3,"time":"2024-05-01T08:00:04.000Z","lat":91.0,"lon":8.5}"#,
      #"{"class":"SKY","hdop":0.9,"satellites":[{"PRN":7,"el":95.0,"az":10.0,"ss":40.0,"used":true}]}"#,
      "{\"class\":\"ERROR\",\"message\":\"" + String(repeating: "x", count: 11_000) + "\"}",
      Self.tpv(#""speed":2.0"#, second: 5),
    ]
    let (fixes, counters) = Self.decode(lines.joined(separator: "\n") + "\n")
    #expect(fixes.map(\.speed) == [1.0, 2.0])
    #expect(counters.malformed == 4)
    #expect(counters.outOfRange == 4)
    #expect(counters.overlong == 1)
    #expect(counters.reports == 2)
    #expect(counters.rejectionSummary == "4 malformed, 4 out of range, 1 overlong")
  }

  @Test func aTwoDimensionalFixCarriesNoAltitude() {
    let line = #"{"class":"TPV","mode":2,"time":"2024-05-01T08:00:00.000Z","lat":47.37,"lon":8.54,"alt":410.0,"altHAE":457.3,"epv":5.0}"#
    let (fixes, _) = Self.decode(line + "\n")
    #expect(fixes.count == 1)
    #expect(fixes.first?.mode == .twoD && fixes.first?.altitude == nil && fixes.first?.ellipsoidalAltitude == nil)
  }

  @Test(.offThePool) func linesSplitAnywhereGiveTheSameResult() {
    var lines = (0..<20).map { Self.tpv(#""speed":\#($0).0"#, second: $0) }
    lines.insert("garbage", at: 3)
    lines.insert(#"{"class":"SKY","hdop":0.9,"satellites":[{"PRN":7,"el":45.0,"az":10.0,"ss":40.0,"used":true}]}"#, at: 5)
    let (failures, reference) = DecoderVerifier.verify({ GPSDStreamDecoder() }, Array(lines.joined(separator: "\r\n").utf8))
    #expect(failures.isEmpty, "\(failures)")
    #expect(reference.outputs.count == 21 && reference.summary.malformed == 1)
  }

  /// gpsd ships what it has when the receiver pauses mid-epoch, then the full report.
  @Test func aPartialReportIsReplacedByTheFullOneOfTheSameEpoch() {
    let lines = [
      Self.tpv(#""speed":1.0"#, second: 1),
      Self.tpv(#""ept":0.005"#, second: 2),  // the GGA's position, no speed yet
      Self.tpv(#""speed":2.0"#, second: 2),
      Self.tpv(#""speed":3.1,"track":90.0"#, second: 3),
      Self.tpv(#""speed":3.12"#, second: 4),  // gpsd's own speed from two positions, no track
      Self.tpv(#""speed":3.0,"track":91.0"#, second: 4),
    ]
    let fixes = Self.decode(lines.joined(separator: "\n") + "\n").fixes
    #expect(fixes.map(\.speed) == [1.0, 2.0, 3.1, 3.0])
    #expect(fixes.map(\.course) == [nil, nil, 90.0, 91.0])
  }

  @Test func aPartialFirstReportTeachesNothingTheFullOneDoesNot() {
    // Connected mid-epoch: the first report is partial and comes out; its full twin shows
    // what this gpsd's reports carry, so the next partial one waits.
    let lines = [
      Self.tpv(#""speed":1.02"#, second: 1), Self.tpv(#""speed":1.0,"track":90.0"#, second: 1),
      Self.tpv(#""speed":2.02"#, second: 2), Self.tpv(#""speed":2.0,"track":91.0"#, second: 2),
    ]
    let fixes = Self.decode(lines.joined(separator: "\n") + "\n").fixes
    #expect(fixes.map(\.speed) == [1.02, 2.0] && fixes.map(\.course) == [nil, 91.0])
  }

  @Test func aPartialReportWithoutAFullerOneStillComesOutAsItIs() {
    let lines = [Self.tpv(#""speed":1.0"#, second: 1), Self.tpv(#""ept":0.005"#, second: 2), Self.tpv(#""speed":3.0"#, second: 3)]
    #expect(Self.decode(lines.joined(separator: "\n") + "\n").fixes.map(\.speed) == [1.0, nil, 3.0])
    let cutShort = [Self.tpv(#""speed":1.0"#, second: 1), Self.tpv(#""ept":0.005"#, second: 2)]
    #expect(Self.decode(cutShort.joined(separator: "\n"), finished: true).fixes.map(\.speed) == [1.0, nil])
  }

  @Test func aReceiverThatNeverSendsSpeedIsNotHeldBack() {
    var decoder = GPSDStreamDecoder()
    for second in 1...3 {
      decoder.append(Array((Self.tpv(#""ept":0.005"#, second: second) + "\n").utf8))
      var fixes = 0
      while let output = decoder.next() { if case .fix = output { fixes += 1 } }
      #expect(fixes == 1, "second \(second) comes out at once")
    }
  }
}

/// The stream decoder as the shared decoder verifier sees it.
extension GPSDStreamDecoder: VerifiableDecoder {
  public mutating func nextOutput() -> Output? { next() }
  public var summary: Counters { counters }
}
