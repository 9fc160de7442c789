import Foundation
import TestHelpers
import Testing

/// `gpsbridge configure` end to end: the program against a simulated u-blox on a pty (the
/// `simulate --pty` the README shows), and the README's own configure lines run as written
/// with the simulated receiver's path for the device.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ConfigureProgramTests {
  /// A simulated live u-blox at `link`, running until the returned process is stopped.
  static func simulatedReceiver(_ name: String) async throws -> (Process, String) {
    let link = PseudoTerminal.temporaryLink(name)
    let simulator = try Gpsbridge.start(["simulate", "--pty", link, "--live"])
    try await waitUntilExists(link)
    return (simulator, link)
  }

  static func stop(_ simulator: Process) async throws {
    simulator.terminate()
    try await offThePool { simulator.waitForExit() }
  }

  @Test func aRateAndSentencesAreSetAndMeasuredThenShown() async throws {
    let (simulator, link) = try await Self.simulatedReceiver("configure-rate")
    let changed = try await Program.run(["configure", "--device", link, "--rate", "5", "--sentences", "GGA,RMC"])
    let shown = try await Program.run(["configure", "--device", link, "--show", "--json"])
    try await Self.stop(simulator)
    #expect(changed.status == 0, "\(changed.error)")
    #expect(changed.output.contains("rate             1 Hz → 5 Hz"), "\(changed.output)")
    #expect(changed.output.contains("output after     5.0 Hz, GGA RMC"), "\(changed.output)")
    #expect(changed.output.contains("kept in RAM"), "\(changed.output)")
    let settings = try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any]
    #expect(settings?["rate"] as? Int == 5, "\(shown.output) \(shown.error)")
    #expect(settings?["sentences"] as? [String] == ["GGA", "RMC"])
    #expect((settings?["receiver"] as? [String: Any])?["model"] as? String == "ZED-F9P")
    #expect((settings?["receiver"] as? [String: Any])?["kind"] as? String == "ublox9")
  }

  /// `--for` sets the dynamic model a live-updates configuration suits (fitness: pedestrian),
  /// and a `--dynamic-model` that says otherwise is refused before the receiver is touched.
  @Test func forAnActivitySetsItsDynamicModel() async throws {
    let (simulator, link) = try await Self.simulatedReceiver("configure-for")
    let changed = try await Program.run(["configure", "--device", link, "--for", "fitness"])
    let shown = try await Program.run(["configure", "--device", link, "--show", "--json"])
    let clash = try await Program.run(["configure", "--device", link, "--for", "airborne", "--dynamic-model", "sea"])
    try await Self.stop(simulator)
    #expect(changed.status == 0, "\(changed.error)")
    #expect(changed.output.contains("portable → pedestrian"), "\(changed.output)")
    let settings = try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any]
    #expect(settings?["dynamicModel"] as? String == "pedestrian", "\(shown.output)")
    #expect(clash.status == 64 && clash.error.contains("give one of them"), "\(clash.error)")
  }

  @Test func whatCannotBeTakenIsRefusedWithTheReasonAndNothingChanges() async throws {
    let (simulator, link) = try await Self.simulatedReceiver("configure-refused")
    let refused = try await Program.run([
      "configure", "--device", link, "--rate", "25", "--sentences", "GGA,GLL,GSA,GSV,RMC,VTG,ZDA",
      "--constellations", "gps,glonass,galileo,beidou,qzss,sbas",
    ])
    // With --json the refusal is in the JSON too: a program reading it gets an answer.
    let refusedJSON = try await Program.run(["configure", "--device", link, "--rate", "25", "--json"])
    let shown = try await Program.run(["configure", "--device", link, "--show"])
    try await Self.stop(simulator)
    #expect(refused.status == 1)
    #expect(refused.error.contains("bytes a second at 25 Hz; 38400 baud carries 3840"), "\(refused.error)")
    #expect(refusedJSON.status == 1)
    let answer = try JSONSerialization.jsonObject(with: Data(refusedJSON.output.utf8)) as? [String: Any]
    #expect((answer?["error"] as? String)?.contains("at 25 Hz") == true, "\(refusedJSON.output) \(refusedJSON.error)")
    #expect(shown.output.contains("rate             1 Hz"), "\(shown.output)")
  }

  /// The baud rate up and back down through the program: each run finds the receiver at the
  /// speed the last one left it (autobaud), switches it, and asks it at the new speed. (No run
  /// after the last: a pseudo-terminal keeps what nobody read, and once the line idles at the
  /// simulated receiver's own speed, the next program reads those bytes at its first probe
  /// speed — a real serial port drops them.)
  @Test func theBaudRateGoesUpAndBackThroughTheProgram() async throws {
    let (simulator, link) = try await Self.simulatedReceiver("configure-baud")
    let up = try await Program.run(["configure", "--device", link, "--baud", "115200"])
    let shownUp = try await Program.run(["configure", "--device", link, "--show"])
    let down = try await Program.run(["configure", "--device", link, "--baud", "38400"])
    try await Self.stop(simulator)
    #expect(up.status == 0, "\(up.error)")
    #expect(up.output.contains("baud             38400 → 115200"), "\(up.output)")
    #expect(up.error.contains("it answers at 115200 baud"), "\(up.error)")
    #expect(shownUp.output.contains("baud             115200"), "\(shownUp.output) \(shownUp.error)")
    #expect(shownUp.error.contains("NMEA at 115200 baud"), "\(shownUp.error)")
    #expect(down.status == 0, "\(down.error)")
    #expect(down.error.contains("NMEA at 115200 baud") && down.error.contains("it answers at 38400 baud"), "\(down.error)")
    #expect(down.output.contains("baud             115200 → 38400"), "\(down.output)")
  }

  @Test func theReadmesConfigureLinesWorkAsWritten() async throws {
    let readme = try Documentation.text()
    let lines = readme.split(separator: "\n").map(String.init).filter {
      $0.hasPrefix("gpsbridge configure --device /dev/ttyACM0") || $0.hasPrefix("gpsbridge configure --device /dev/ttyUSB0")
    }.map { $0.components(separatedBy: "   #").first! }
    #expect(lines.count >= 3)
    let (simulator, link) = try await Self.simulatedReceiver("configure-readme")
    var results: [(String, Int32, String)] = []
    for line in lines {
      let arguments = line.replacingOccurrences(of: "/dev/ttyACM0", with: link).replacingOccurrences(of: "/dev/ttyUSB0", with: link)
        .split(separator: " ").dropFirst().map(String.init)
      let result = try await Program.run(arguments)
      results.append((line, result.status, result.error))
    }
    try await Self.stop(simulator)
    for (line, status, error) in results { #expect(status == 0, "\(line): \(error)") }
  }
}
