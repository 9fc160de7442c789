/// What a receiver's pipeline has taken so far, for a status page and metrics: bytes,
/// sentences and frames by protocol, and what it threw away by reason. Counts only grow
/// (a baud change that starts the pipeline afresh keeps them).
package struct ReceiverTally: Sendable, Equatable {
  /// Bytes read from the receiver (or the capture).
  package var bytes = 0
  /// NMEA sentences framed with a good checksum.
  package var sentences = 0
  /// UBX frames taken out of the stream.
  package var ubxFrames = 0
  /// RTCM 3 frames taken out of the stream.
  package var rtcm3Frames = 0
  /// What was thrown away, by reason as the rejects are said ("bad checksum", "UBX overlong").
  package var rejects: [String: Int] = [:]

  package init() {}

  /// The protocols heard so far, for people: "NMEA", "UBX", "NMEA + UBX".
  package var protocols: String {
    let heard = [(sentences, "NMEA"), (ubxFrames, "UBX"), (rtcm3Frames, "RTCM 3")].filter { $0.0 > 0 }.map(\.1)
    return heard.isEmpty ? "none yet" : heard.joined(separator: " + ")
  }

  /// `self` with `other`'s counts added: what a pipeline counted before it started afresh.
  package func adding(_ other: ReceiverTally) -> ReceiverTally {
    var sum = self
    sum.bytes += other.bytes
    sum.sentences += other.sentences
    sum.ubxFrames += other.ubxFrames
    sum.rtcm3Frames += other.rtcm3Frames
    sum.rejects.merge(other.rejects, uniquingKeysWith: +)
    return sum
  }
}
