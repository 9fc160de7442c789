import NMEA
import Testing
import TimeService

/// Which second each pulse marks, from the NMEA time heard before it; edges made up here.
struct PulseLabellerTests {
  static let base: Int64 = 1_714_550_400 * 1_000_000_000  // 2024-05-01T08:00:00Z

  /// The NMEA sample of second `second`, arriving `delay` seconds after it.
  static func nmea(_ second: Int64, delay: Double = 0.150) -> TimeSample {
    TimeSample(
      kind: .serial, reference: UTCTimestamp(nanosecondsSince1970: base + second * 1_000_000_000),
      system: UTCTimestamp(nanosecondsSince1970: base + second * 1_000_000_000 + Int64(delay * 1e9)))
  }

  static func edge(_ seconds: Double) -> UTCTimestamp {
    UTCTimestamp(nanosecondsSince1970: base + Int64((seconds * 1e9).rounded()))
  }

  /// A receiver's pulses and NMEA in their usual order — pulse N, then N's NMEA — labelled.
  static func labels(delay: Double, edgeJitter: [Double] = Array(repeating: 0, count: 6)) -> [Int64?] {
    var labeller = PulseLabeller()
    var labels: [Int64?] = []
    for second in Int64(0)..<6 {
      let label = labeller.label(edge: edge(Double(second) + edgeJitter[Int(second)]))
      labels.append(label.map { ($0.reference.nanosecondsSince1970 - base) / 1_000_000_000 })
      labeller.take(nmea(second, delay: delay))
    }
    return labels
  }

  @Test func eachPulseIsTheSecondAfterTheNMEATimeBeforeIt() {
    // The first edge has no previous edge and no time yet: refused.
    #expect(Self.labels(delay: 0.150) == [nil, 1, 2, 3, 4, 5])
    // A receiver that is slow with its NMEA (900 ms) still labels right.
    #expect(Self.labels(delay: 0.900) == [nil, 1, 2, 3, 4, 5])
  }

  @Test func aPulseSampleIsTheEdgesSystemTimeAgainstItsSecond() throws {
    var labeller = PulseLabeller()
    _ = labeller.label(edge: Self.edge(0.0002))
    labeller.take(Self.nmea(0))
    let label = labeller.label(edge: Self.edge(1.0002))
    let sample = try #require(label)
    #expect(sample.kind == .pulse)
    #expect(abs(sample.offset + 0.0002) < 1e-9)
  }

  @Test func anEdgeNotAboutASecondAfterTheLastIsRefused() {
    // A glitch half-way through second 3.
    var labeller = PulseLabeller()
    var labels: [Bool] = []
    for (edge, second) in [(0.0, 0), (1.0, 1), (2.0, 2), (2.5, 2), (3.0, 3), (4.0, 4)] as [(Double, Int64)] {
      labels.append(labeller.label(edge: Self.edge(edge)) != nil)
      labeller.take(Self.nmea(second))
    }
    // 2.5 is refused, and so is 3.0, being half a second after the glitch; 4.0 is fine again.
    #expect(labels == [false, true, true, false, false, true])
    #expect(labeller.refused[.notASecondAfterTheLast] == 3)
  }

  @Test func noRecentNMEATimeMeansNoLabel() {
    var labeller = PulseLabeller()
    _ = labeller.label(edge: Self.edge(0))
    #expect(labeller.label(edge: Self.edge(1)) == nil)  // no NMEA at all
    labeller.take(Self.nmea(1))
    _ = labeller.label(edge: Self.edge(2))
    // The NMEA stops: the next pulses find only a time older than a second.
    #expect(labeller.label(edge: Self.edge(3)) == nil)
    #expect(labeller.refused[.noTime] == 2)
  }
}
