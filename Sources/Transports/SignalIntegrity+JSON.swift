import Framing
import Plumbing

extension SignalIntegrity {
  /// The state's fields as JSON, as the `--json` line and gpsd clients' INTEGRITY object
  /// carry them: the states by name (`jamming`: unknown, ok, warning, critical; `spoofing`:
  /// unknown, none, indicated, affirmed; `antenna`: initializing, unknown, ok, short, open),
  /// each with the message that said it, the antenna's power when known, and gpsd's `jam`.
  package func writeFields(into writer: inout JSONWriter) {
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
