import Foundation
import TestHelpers
import Testing

/// Every capture replays, and `check` reads it the same way: each line by its kind (NMEA or
/// gpsd's JSON), CR-only line ends, a byte order mark, and a capture that gives no location
/// says why instead of ending quietly with nothing.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct CaptureVariantTests {
  /// The timestamps of the locations `--replay` prints for `capture`.
  static func replayed(_ capture: String) async throws -> (timestamps: [String], result: Program.Result) {
    let result = try await Program.run(["--replay", capture, "--speed", "max", "--json"])
    let timestamps = result.output.split(separator: "\n").filter { $0.contains(#""event":"didUpdateLocations""#) }.compactMap {
      line -> String? in
      guard let range = line.range(of: #""timestamp":""#) else { return nil }
      return String(line[range.upperBound...].prefix { $0 != "\"" })
    }
    return (timestamps, result)
  }

  /// What `check --json` counts as the capture's epochs.
  static func checkedEpochs(_ capture: String) async throws -> Int? {
    let result = try await Program.run(["check", capture, "--json"])
    guard let data = result.output.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let epochs = object["fixes"] as? Int
    else { return nil }
    return epochs
  }

  static func write(_ bytes: [UInt8], named name: String) throws -> String {
    let path = scratchDirectory("gpsbridge-captures").appendingPathComponent(name).path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  static var drive: [UInt8] {
    get throws { Array(try Data(contentsOf: Program.fixtures.appendingPathComponent("ublox-m8-1hz.nmea"))) }
  }

  @Test func crOnlyLineEndsReplayAndCheckAlike() async throws {
    let drive = try Self.drive
    let crOnly = try Self.write(drive.filter { $0 != 0x0A }, named: "cr-only.nmea")
    let original = try await Self.replayed(Program.fixtures.appendingPathComponent("ublox-m8-1hz.nmea").path)
    let replayed = try await Self.replayed(crOnly)
    #expect(!original.timestamps.isEmpty)
    #expect(replayed.timestamps == original.timestamps, "\(replayed.result.error)")
    let checked = try await Self.checkedEpochs(crOnly)
    let checkedOriginal = try await Self.checkedEpochs(Program.fixtures.appendingPathComponent("ublox-m8-1hz.nmea").path)
    #expect(checked != nil && checked == checkedOriginal)
  }

  @Test func aByteOrderMarkHidesNeitherTheDateLineNorAGPSDLog() async throws {
    // GGA only: its date comes from the `# Date:` line alone.
    let lines = String(decoding: try Self.drive, as: UTF8.self).split(whereSeparator: \.isNewline)
    let ggaOnly = "# Date: 2024-05-01\r\n" + lines.filter { $0.contains("GGA,") }.joined(separator: "\r\n") + "\r\n"
    let plain = try Self.write(Array(ggaOnly.utf8), named: "gga.nmea")
    let marked = try Self.write([0xEF, 0xBB, 0xBF] + Array(ggaOnly.utf8), named: "gga-bom.nmea")
    let expected = try await Self.replayed(plain).timestamps
    #expect(!expected.isEmpty)
    let withMark = try await Self.replayed(marked).timestamps
    #expect(withMark == expected)

    let log = #"""
      {"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}
      {"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2026-11-26T08:00:00.000Z","lat":47.3769,"lon":8.5417,"altMSL":410.0}
      {"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2026-11-26T08:00:01.000Z","lat":47.3770,"lon":8.5418,"altMSL":410.0}

      """#
    let markedLog = try Self.write([0xEF, 0xBB, 0xBF] + Array(log.utf8), named: "gpsd-bom.json")
    let logged = try await Self.replayed(markedLog).timestamps
    #expect(logged == ["2026-11-26T08:00:00.000Z", "2026-11-26T08:00:01.000Z"])
  }

  @Test func aCaptureThatGivesNoLocationSaysWhy() async throws {
    let noFix = (0..<30).map { second -> String in
      let body = "GPGGA,1200\(String(format: "%02d", second)).00,,,,,0,00,99.99,,,,,,"
      return "$\(body)*\(String(format: "%02X", body.utf8.reduce(0, ^)))\r\n"
    }.joined()
    let lines = String(decoding: try Self.drive, as: UTF8.self).split(whereSeparator: \.isNewline)
    let undated = lines.filter { !$0.hasPrefix("#") && $0.contains("GGA,") }.joined(separator: "\n") + "\n"
    for (name, text, why) in [
      ("no-fix.nmea", noFix, "none with a position: the receiver had no fix"),
      ("undated.nmea", undated, "none with a date: the capture never says the date (no RMC or ZDA)"),
    ] {
      let replayed = try await Self.replayed(try Self.write(Array(text.utf8), named: name))
      #expect(replayed.timestamps.isEmpty)
      #expect(replayed.result.status == 1, "\(name): \(replayed.result.error)")
      #expect(
        replayed.result.error.contains("Error: no location in the capture.") && replayed.result.error.contains(why),
        "\(replayed.result.error)")
    }
  }

  @Test(.enabled(if: FakeGPSD.isAvailable, "gpsfake and gpspipe are not installed (Debian: gpsd gpsd-clients)"))
  func gpspipeCapturesFromARealGPSDReplayTheirNMEAOnce() async throws {
    let gpsd = try await FakeGPSD.started(capture: Program.fixtures.appendingPathComponent("sirf-nmea22-1hz.nmea").path, cycle: 0.005)
    defer { gpsd.stop() }
    // gpsd's own recording forms: its NMEA after its VERSION, DEVICES and WATCH (-r), and its
    // reports and the NMEA together (-w -r).
    var captures: [String: String] = [:]
    for (name, flags) in [("gpspipe-r.nmea", ["-r"]), ("gpspipe-wr.log", ["-w", "-r"])] {
      let output = try await runProgram(
        FakeGPSD.gpspipe.map(URL.init(fileURLWithPath:))!, flags + ["-n", "120", "127.0.0.1:\(gpsd.port)"], timeout: 30
      ).output
      #expect(output.hasPrefix(#"{"class":"VERSION""#), "\(output.prefix(200))")
      captures[name] = try Self.write(Array(output.utf8), named: name)
    }
    let raw = try await Self.replayed(captures["gpspipe-r.nmea"]!)
    #expect(raw.timestamps.count >= 5, "\(raw.result.error)")
    let mixed = try await Self.replayed(captures["gpspipe-wr.log"]!)
    #expect(mixed.timestamps.count >= 5, "\(mixed.result.error)")
    // Each epoch once, though gpsd's TPV of it is in the file beside its sentences.
    #expect(Set(mixed.timestamps).count == mixed.timestamps.count, "\(mixed.timestamps)")
    let checked = try await Self.checkedEpochs(captures["gpspipe-r.nmea"]!) ?? 0
    #expect(checked >= 5)
  }
}
