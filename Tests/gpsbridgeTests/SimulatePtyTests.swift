import Foundation
import TestHelpers
import Testing

/// `simulate --pty PATH` makes a link at PATH and takes away only that: a file, or a link to
/// anything but a pseudo-terminal, is refused and left as it was.
@Suite(.timeLimit(.minutes(3)))
struct SimulatePtyTests {
  @Test func aFileAtThePathIsRefusedAndKept() async throws {
    let path = scratchDirectory("simulate-pty").appendingPathComponent("capture.nmea").path
    try Data("precious\n".utf8).write(to: URL(fileURLWithPath: path))
    let result = try await Program.run(["simulate", "--pty", path, "--live"], timeout: 10)
    #expect(result.status == 64, "\(result.error)")
    #expect(result.error.contains("exists and is not a link to a pseudo-terminal"), "\(result.error)")
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "precious\n")
  }

  @Test func aLinkToAnotherDeviceIsRefusedAndKept() async throws {
    let path = scratchDirectory("simulate-pty").appendingPathComponent("gps0").path
    unlink(path)
    #expect(symlink("/dev/null", path) == 0)
    let result = try await Program.run(["simulate", "--pty", path, "--live"], timeout: 10)
    #expect(result.status == 64, "\(result.error)")
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == "/dev/null")
  }

  /// Its own link, left behind by a simulation that was killed, is taken over; at the end it
  /// is removed.
  @Test func itsOwnLinkIsReplacedAndRemovedAtTheEnd() async throws {
    let path = scratchDirectory("simulate-pty").appendingPathComponent("gps1").path
    unlink(path)
    #expect(symlink("/dev/pts/999", path) == 0)
    let result = try await Program.run(["simulate", "--pty", path, "--duration", "1"], timeout: 20)
    #expect(result.status == 0, "\(result.error)")
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == nil)
  }
}
