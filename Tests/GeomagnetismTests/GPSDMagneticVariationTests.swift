import Foundation
import GPSD
import Geomagnetism
import TestHelpers
import Testing

/// gpsd's own `magvar` for receivers that give none, on the same capture: gpsd 3.22 looks it
/// up in a 5°×5° table of WMM2015 declinations pinned at 2020-01-01 (its `geoid.c`), so it
/// matches the model at 2020.0 within that table's precision (its interpolation over 5°, and
/// its one decimal). gpsbridge's is the model's at the fix's own date, which differs from
/// gpsd's by what the field moved since 2020 (two degrees at Reykjavik by 2026).
@Suite(.timeLimit(.minutes(2)), .enabled(if: FakeGPSD.isAvailable, "gpsfake and gpspipe are not installed (Debian: gpsd gpsd-clients)"))
struct GPSDMagneticVariationTests {
  static let places: [(Double, Double)] = [
    (47.37, 8.54), (-33.87, 151.21), (40.71, -74.01), (64.14, -21.94), (-54.8, -68.3), (35.68, 139.69), (1.35, 103.82),
  ]

  /// Two epochs at each place, dated 25 November 2026, with no variation in the RMC.
  static var capture: String {
    func sentence(_ body: String) -> String { "$\(body)*\(String(format: "%02X", body.utf8.reduce(0, ^)))\r\n" }
    func angle(_ value: Double, degreeDigits: Int) -> String {
      String(format: "%0\(degreeDigits)d%07.4f", Int(abs(value)), abs(value).truncatingRemainder(dividingBy: 1) * 60)
    }
    var text = ""
    var second = 0
    for (latitude, longitude) in places {
      for _ in 0..<2 {
        let time = String(format: "1200%02d.00", second)
        second += 1
        let position =
          "\(angle(latitude, degreeDigits: 2)),\(latitude < 0 ? "S" : "N"),\(angle(longitude, degreeDigits: 3)),\(longitude < 0 ? "W" : "E")"
        text += sentence("GPGGA,\(time),\(position),1,08,0.9,100.0,M,0.0,M,,")
        text += sentence("GPRMC,\(time),A,\(position),10.0,90.0,251126,,,A")
      }
    }
    return text
  }

  @Test func gpsdsMagvarIsTheModelAt2020WithinItsTablesPrecision() async throws {
    let path = scratchDirectory("gpsbridge-magvar").appendingPathComponent("mag2026.nmea").path
    try Self.capture.write(toFile: path, atomically: true, encoding: .utf8)
    // gpsd read through gpspipe. In a loaded run gpsd once had lost gpsfake's device by the
    // time gpspipe connected (`DEVICES []`, no TPV in 30 s): then gpsfake is started again, at
    // most twice, since without a device gpsd has nothing to say of magvar.
    var output = ""
    for _ in 0..<3 {
      let gpsd = try await FakeGPSD.started(capture: path, cycle: 0.02)
      defer { gpsd.stop() }
      output = try await runProgram(URL(fileURLWithPath: FakeGPSD.gpspipe!), ["-w", "-n", "60", "127.0.0.1:\(gpsd.port)"], timeout: 30)
        .output
      if output.contains(#""class":"TPV""#) { break }
    }
    var compared = 0
    for line in output.split(whereSeparator: \.isNewline) {
      guard case .tpv(let tpv) = try? GPSDReport(line: Array(line.utf8)), let latitude = tpv.latitude, let longitude = tpv.longitude,
        let magvar = tpv.magneticVariation
      else { continue }
      let model2020 = WorldMagneticModel.wmm2025.field(latitude: latitude, longitude: longitude, altitude: 100, year: 2020.0).declination
      #expect(abs(model2020 - magvar) < 0.3, "\(latitude), \(longitude): gpsd \(magvar), the model at 2020.0 \(model2020)")
      compared += 1
    }
    #expect(compared >= Self.places.count, "\(output.prefix(300))")
  }
}
