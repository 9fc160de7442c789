import NMEA

/// Names the second each pulse-per-second edge marks, from the receiver's NMEA time around it:
/// a pure function of the samples and edges in order, so its rules are tested with edges made
/// up in the test.
///
/// A receiver sends the NMEA for second N just after the pulse that starts N (its delay is
/// tens to hundreds of milliseconds). So an edge is labelled one second after the last NMEA
/// time heard before it — as gpsd does — and only when
/// - that NMEA sample is consistent (it came from ``TimeSampler``) and under a second and a
///   bit old at the edge (`0 < edge − sample's arrival < 1.1 s`),
/// - the edge is about one second (±``edgeTolerance``) after the previous edge: a first
///   edge, one after a gap, or a glitch between two pulses is refused, counted in
///   ``refused``, never labelled by guess.
public struct PulseLabeller: Sendable {
  /// How far an edge may be from one second after the previous one, nanoseconds.
  public static let edgeTolerance: Int64 = 10_000_000
  /// The oldest a serial sample may be at an edge to label it, nanoseconds.
  public static let sampleLifetime: Int64 = 1_100_000_000

  private var lastSample: TimeSample?
  private var lastEdge: Int64?
  /// Edges refused, by reason.
  public private(set) var refused: [Refusal: Int] = [:]

  /// Why an edge got no label.
  public enum Refusal: Hashable, Sendable {
    /// No consistent NMEA time in the second before it.
    case noTime
    /// Not about one second after the previous edge (or no previous edge).
    case notASecondAfterTheLast
  }

  public init() {}

  /// Takes a serial (NMEA) sample: the time that labels the next edges.
  public mutating func take(_ sample: TimeSample) {
    guard sample.kind == .serial else { return }
    lastSample = sample
  }

  /// Forgets the last serial sample: no edge is labelled until the next one.
  package mutating func forgetTime() {
    lastSample = nil
  }

  /// The pulse sample for an edge seen at `edge` by the system clock, if it can be labelled.
  public mutating func label(edge: UTCTimestamp) -> TimeSample? {
    let nanoseconds = edge.nanosecondsSince1970
    defer { lastEdge = nanoseconds }
    guard let lastEdge, abs(nanoseconds - lastEdge - 1_000_000_000) <= Self.edgeTolerance else {
      refused[.notASecondAfterTheLast, default: 0] += 1
      return nil
    }
    guard let sample = lastSample else {
      refused[.noTime, default: 0] += 1
      return nil
    }
    let age = nanoseconds - sample.system.nanosecondsSince1970
    guard age > 0, age < Self.sampleLifetime else {
      refused[.noTime, default: 0] += 1
      return nil
    }
    let second = sample.reference.nanosecondsSince1970 / 1_000_000_000 + 1
    return TimeSample(kind: .pulse, reference: UTCTimestamp(nanosecondsSince1970: second * 1_000_000_000), system: edge)
  }
}
