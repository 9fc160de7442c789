import Foundation
import TestHelpers
import Testing

/// Names from elsewhere (a region's identifier, a file or device path) reach the terminal as
/// text: their escapes can neither retitle the window nor clear the screen, and their newlines
/// cannot start a line that passes for one of gpsbridge's own.
@Suite struct HostileNamesTests {
  static let capture = Program.fixtures.appendingPathComponent("sirf-nmea22-1hz.nmea").path
  static let forged = "\u{1B}]0;owned\u{07}home\ngpsbridge: all good\u{9B}2J"

  static func hasNoControlCharacters(_ text: String) -> Bool {
    !text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }
  }

  @Test func aRegionsIdentifierIsShownAsText() async throws {
    let result = try await Program.run(["--replay", Self.capture, "--speed", "max", "--region", "\(Self.forged),-33.86,151.21,500"])
    #expect(result.status == 0, "\(result.error)")
    #expect(Self.hasNoControlCharacters(result.output), "\(result.output.debugDescription)")
    #expect(!result.output.split(separator: "\n").contains { $0.hasPrefix("gpsbridge: all good") })
    #expect(result.output.contains(#"\e]0;owned\x{07}home\ngpsbridge: all good\x{9B}2J"#), "\(result.output)")
  }

  @Test func aPathInAnErrorIsShownAsText() async throws {
    let path = "/nonexistent/\(Self.forged)"
    let result = try await Program.run(["check", path])
    #expect(result.status == 1)
    #expect(Self.hasNoControlCharacters(result.error), "\(result.error.debugDescription)")
    #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
    #expect(result.error.contains(#"\e]0;owned\x{07}home\ngpsbridge: all good"#), "\(result.error)")
  }
}
