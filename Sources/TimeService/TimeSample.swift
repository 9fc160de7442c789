import NMEA

/// One reading of the receiver's time against the system clock's, as a reference clock in
/// chrony or ntpd takes it: "at `system` by this machine's clock, it was `reference`".
public struct TimeSample: Hashable, Sendable {
  /// Where the sample comes from: two sources that chrony and ntpd weigh as two refclocks.
  public enum Kind: Hashable, Sendable {
    /// The start of an NMEA burst, tied to the second it reports; late by the receiver's own
    /// delay (tens to hundreds of milliseconds) and jittery by the serial line's.
    case serial
    /// A pulse-per-second edge, marking the start of `reference`'s second to a microsecond.
    case pulse
  }

  public var kind: Kind
  /// The receiver's UTC time for the moment sampled.
  public var reference: UTCTimestamp
  /// This machine's `CLOCK_REALTIME` at that moment.
  public var system: UTCTimestamp

  public init(kind: Kind, reference: UTCTimestamp, system: UTCTimestamp) {
    self.kind = kind
    self.reference = reference
    self.system = system
  }

  /// `reference − system`, seconds: what chrony's SOCK protocol calls the offset (negative
  /// when the system clock reads later than the receiver, as it does by the serial delay).
  public var offset: Double {
    Double(reference.nanosecondsSince1970 - system.nanosecondsSince1970) / 1e9
  }
}
