import Framing
import GPSD

extension GPSDReport.TPV {
  /// gpsd's `ant`, `antPwr` and `jam` from what the receiver says, as gpsd 3.26 and later
  /// write them (`gpsd_json.c`): the antenna's state only when it is open or shorted, its
  /// power when known, the jamming indicator when it is not 0. A receiver that says nothing
  /// of them gets none of them.
  mutating func mark(with integrity: SignalIntegrity) {
    antennaStatus =
      switch integrity.antenna {
      case .open: 2
      case .short: 3
      case .initializing, .unknown, .ok: nil
      }
    antennaPower =
      switch integrity.antennaPower {
      case .off: 1
      case .on: 2
      case .unknown: nil
      }
    jamming = integrity.jammingIndicator.flatMap { $0 > 0 ? $0 : nil }
  }
}
