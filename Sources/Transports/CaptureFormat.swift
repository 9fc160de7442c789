/// What a capture holds: a receiver's NMEA (what `gpsbridge record` writes), or a gpsd's JSON
/// reports (what `gpspipe -w` writes). `--replay`, `check` and the library tell them apart the
/// same way.
public enum CaptureFormat: Hashable, Sendable {
  case nmea
  case gpsdJSON

  /// The format of a capture that starts with `start`: gpsd's JSON when the first line that is
  /// not a `#` comment starts with `{`, NMEA otherwise; `nil` while `start` holds only comments
  /// and blank lines (read on).
  public static func detect(_ start: some Collection<UInt8>) -> CaptureFormat? {
    var atLineStart = true
    var inComment = false
    for byte in start {
      if inComment {
        if byte == 0x0A { inComment = false }
        continue
      }
      switch byte {
      case 0x0A, 0x0D, 0x20, 0x09: atLineStart = byte == 0x0A || byte == 0x0D || atLineStart
      case UInt8(ascii: "#") where atLineStart: inComment = true
      case UInt8(ascii: "{"): return .gpsdJSON
      default: return .nmea
      }
    }
    return nil
  }
}
