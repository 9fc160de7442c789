/// A deterministic NMEA stream for the benchmark: per 1 Hz epoch RMC, GGA, two GSA, five GSV,
/// VTG and GLL (11 sentences), the position drifting so numbers change from line to line.
enum StreamGenerator {
  static func make(epochs: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(epochs * 800)
    var latitudeMinutes = 7.038
    var longitudeMinutes = 31.000
    for epoch in 0..<epochs {
      let seconds = epoch % 86_400
      let time = pad(seconds / 3600) + pad(seconds / 60 % 60) + pad(seconds % 60) + ".00"
      let day = 1 + epoch / 86_400 % 28
      let date = pad(day) + "0524"
      latitudeMinutes = (latitudeMinutes + 0.00137).truncatingRemainder(dividingBy: 60)
      longitudeMinutes = (longitudeMinutes + 0.00211).truncatingRemainder(dividingBy: 60)
      let latitude = "48" + fixed(latitudeMinutes, 2, 5)
      let longitude = "011" + fixed(longitudeMinutes, 2, 5)
      let speed = fixed(Double(epoch % 300) / 10, 1, 3)
      let course = fixed(Double(epoch % 3600) / 10, 1, 2)
      let altitude = fixed(500 + Double(epoch % 100) / 10, 1, 1)
      line("GNRMC,\(time),A,\(latitude),N,\(longitude),E,\(speed),\(course),\(date),,,A", into: &out)
      line("GNGGA,\(time),\(latitude),N,\(longitude),E,1,12,0.92,\(altitude),M,47.3,M,,", into: &out)
      line("GNGSA,A,3,02,05,07,09,13,15,18,20,,,,,1.62,0.92,1.33", into: &out)
      line("GNGSA,A,3,65,66,72,73,81,88,,,,,,,1.62,0.92,1.33", into: &out)
      for group in 1...3 {
        line("GPGSV,3,\(group),11,0\(group),40,083,46,05,23,194,41,07,66,301,\(30 + epoch % 20),09,12,047,3\(group)", into: &out)
      }
      line("GLGSV,2,1,07,65,37,171,37,66,57,298,31,72,63,321,40,73,67,095,23", into: &out)
      line("GLGSV,2,2,07,81,62,231,45,85,38,293,29,88,79,066,\(20 + epoch % 30)", into: &out)
      line("GNVTG,\(course),T,,M,\(speed),N,\(fixed(Double(epoch % 300) / 10 * 1.852, 1, 3)),K,A", into: &out)
      line("GNGLL,\(latitude),N,\(longitude),E,\(time),A,A", into: &out)
    }
    return out
  }

  static func line(_ body: String, into out: inout [UInt8]) {
    var checksum: UInt8 = 0
    for byte in body.utf8 { checksum ^= byte }
    let hex = Array("0123456789ABCDEF".utf8)
    out.append(UInt8(ascii: "$"))
    out.append(contentsOf: body.utf8)
    out.append(contentsOf: [UInt8(ascii: "*"), hex[Int(checksum >> 4)], hex[Int(checksum & 15)], 0x0D, 0x0A])
  }

  static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

  /// `value` with at least `width` integer digits and exactly `decimals` decimals.
  static func fixed(_ value: Double, _ width: Int, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = Int((value * scale).rounded())
    let whole = String(scaled / Int(scale))
    let fraction = String(scaled % Int(scale) + Int(scale)).dropFirst()
    return String(repeating: "0", count: max(0, width - whole.count)) + whole + (decimals > 0 ? "." + fraction : "")
  }
}
