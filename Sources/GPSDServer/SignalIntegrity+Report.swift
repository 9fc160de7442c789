import Framing
import GPSD
import Plumbing

extension SignalIntegrity {
  /// Whether the receiver has said anything of its signals' integrity yet.
  var hasSpoken: Bool { jammingSource != nil || spoofingSource != nil || antennaSource != nil || jammingIndicator != nil }

  /// gpsbridge's INTEGRITY object, for clients watching with `"integrity":true`: the states
  /// by name (`jamming`: unknown, ok, warning, critical; `spoofing`: unknown, none, indicated,
  /// affirmed; `antenna`: initializing, unknown, ok, short, open), each with the message that
  /// said it, the antenna's power, and gpsd's `jam` indicator when known.
  func writeReport(device: String, into writer: inout JSONWriter) {
    writer.line { writer in
      writer.field("class", "INTEGRITY")
      writer.field("device", device)
      writer.field("jamming", "\(jamming)")
      if let jammingSource { writer.field("jammingSource", jammingSource.rawValue) }
      writer.field("spoofing", "\(spoofing)")
      if let spoofingSource { writer.field("spoofingSource", spoofingSource.rawValue) }
      writer.field("antenna", "\(antenna)")
      if antennaPower != .unknown { writer.field("antennaPower", "\(antennaPower)") }
      if let antennaSource { writer.field("antennaSource", antennaSource.rawValue) }
      if let jammingIndicator { writer.field("jam", jammingIndicator) }
    }
  }
}
