import NMEA

/// The GGA sent up to a caster that wants the rover's position (a VRS makes its corrections
/// for it). Only a fix the receiver vouched for goes up: a position, a fix quality, a date,
/// and no older than a few seconds; anything else sends nothing.
enum UpstreamGGA {
  /// The oldest fix sent up.
  static let freshness: Duration = .seconds(5)

  /// The sentence for `fix`, received `age` ago, with its line end; `nil` when the receiver did
  /// not vouch for it.
  static func sentence(for fix: Fix, age: Duration) -> [UInt8]? {
    guard fix.hasPosition, fix.quality != .invalid, fix.timestamp != nil, age <= freshness,
      let latitude = fix.latitude, let longitude = fix.longitude, latitude.isFinite, longitude.isFinite
    else { return nil }
    let time = fix.time
    let centiseconds = time.nanosecond / 10_000_000
    var body = "GPGGA,\(two(time.hour))\(two(time.minute))\(two(time.second)).\(two(centiseconds)),"
    body += angle(abs(latitude), degreeDigits: 2) + (latitude < 0 ? ",S," : ",N,")
    body += angle(abs(longitude), degreeDigits: 3) + (longitude < 0 ? ",W," : ",E,")
    body += "\(fix.quality.ggaIndicator),\(two(min(fix.satellitesUsed ?? 0, 99))),"
    body += (fix.hdop.map { fixed($0, 1) } ?? "") + ","
    body += (fix.altitude.map { fixed($0, 1) } ?? "") + ",M,"
    body += (fix.geoidSeparation.map { fixed($0, 1) } ?? "") + ",M,"
    body += (fix.differentialAge.map { fixed($0, 1) } ?? "") + ","
    body += fix.differentialStation.map { String($0) } ?? ""
    let checksum = body.utf8.reduce(UInt8(0), ^)
    let hex = Array("0123456789ABCDEF")
    return Array("$\(body)*\(hex[Int(checksum >> 4)])\(hex[Int(checksum & 15)])\r\n".utf8)
  }

  private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

  /// Degrees and minutes, `ddmm.mmmmm` (or `dddmm.mmmmm`).
  private static func angle(_ value: Double, degreeDigits: Int) -> String {
    var degrees = Int(value)
    var minutes = ((value - Double(degrees)) * 60 * 100_000).rounded() / 100_000
    if minutes >= 60 {
      degrees += 1
      minutes -= 60
    }
    let whole = String(degrees)
    return String(repeating: "0", count: max(0, degreeDigits - whole.count)) + whole + (minutes < 10 ? "0" : "") + fixed(minutes, 5)
  }

  private static func fixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int((abs(value) * scale).rounded())
    let whole = scaled / Int(scale), fraction = String(scaled % Int(scale))
    return (value < 0 && scaled != 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: decimals - fraction.count) + fraction
  }

}
