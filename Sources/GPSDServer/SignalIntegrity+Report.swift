import Framing
import GPSD
import Plumbing
import Transports

extension SignalIntegrity {
  /// Whether the receiver has said anything of its signals' integrity yet.
  var hasSpoken: Bool { jammingSource != nil || spoofingSource != nil || antennaSource != nil || jammingIndicator != nil }

  /// gpsbridge's INTEGRITY object, for clients watching with `"integrity":true`: the class,
  /// the device, and the fields ``writeFields(into:)`` writes.
  func writeReport(device: String, into writer: inout JSONWriter) {
    writer.line { writer in
      writer.field("class", "INTEGRITY")
      writer.field("device", device)
      writeFields(into: &writer)
    }
  }
}
