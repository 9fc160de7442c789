import Framing
import NMEA

/// What one receiver's pipeline tells its listeners, in the order it happened.
public enum ReceiverEvent: Sendable, Equatable {
  /// The receiver's own bytes as read (once autobaud has settled on a rate), or the lines a
  /// gpsd passes on: what a capture records and a raw watcher is served.
  case bytes([UInt8])
  /// One checksummed sentence, without its line end, before the fix it joins.
  case sentence([UInt8])
  /// One frame of a binary protocol (a UBX acknowledgement, an RTCM 3 message), taken out of
  /// the byte stream before the NMEA framer saw it.
  case frame(ProtocolFrame)
  /// One receiver epoch.
  case fix(Fix)
  /// What the receiver says of its signals' integrity (jamming, spoofing, its antenna), each
  /// time that changes: the fixes after it were made under that state.
  case integrity(SignalIntegrity)
  /// What the source says about itself: authorization, pauses, problems, its end.
  case status(SourceEvent)
  /// Progress worth a line on a terminal ("/dev/ttyACM0: NMEA at 9600 baud").
  case notice(String)
  /// What the source has thrown away so far, by reason ("3 bad checksum, 1 undecodable").
  case rejected(String)
  /// The source is about to open its device or connection (a looped replay: its capture,
  /// again): what follows may start over in time.
  case attempt
  /// The serial line's speed in bits per second, once the receiver's bytes are read at it
  /// (autobaud has found it, or it was given): a gpsd's DEVICE report says it.
  case lineSpeed(Int)
  /// The source has published all it has for now (a read's bytes, a replay's piece or paced
  /// epoch): a listener that gathers events passes them on here, so a fast replay wakes its
  /// readers once a piece rather than once a fix, and a live one as soon as a burst is in.
  case flush
}
