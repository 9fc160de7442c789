import Foundation
import NMEA
import TestHelpers
import Testing

@testable import NMEASimulation

/// NMEA written from fixes (what `serve --nmea-tcp` sends for `best`): read back by our decoder
/// it is the same epoch, and an independent reader (pynmeagps) takes every sentence and checksum.
struct FixSentencesTests {
  /// The fixes of a simulated drive with a u-blox's sky.
  static let fixes: [Fix] = {
    var decoder = FixDecoder()
    decoder.append(Simulation(route: Route.demoDrive.lasting(60), profile: .ublox).capture())
    decoder.finish()
    var fixes: [Fix] = []
    while let fix = decoder.next() { fixes.append(fix) }
    return fixes
  }()

  @Test func theSentencesReadBackAsTheSameEpoch() throws {
    var compared = 0
    for fix in Self.fixes where fix.hasPosition {
      var decoder = FixDecoder()
      decoder.append(FixSentences.sentences(for: fix))
      decoder.finish()
      let next = decoder.next()
      let back = try #require(next, "\(fix)")
      #expect(back.timestamp == fix.timestamp && back.mode == fix.mode && back.quality == fix.quality)
      #expect(abs(back.latitude! - fix.latitude!) < 1e-8 && abs(back.longitude! - fix.longitude!) < 1e-8)
      #expect(abs((back.speed ?? -1) - (fix.speed ?? 0)) < 0.001 && back.course.map { abs($0 - fix.course!) < 0.01 } ?? (fix.course == nil))
      #expect(back.altitude == fix.altitude && back.hdop == fix.hdop && back.satellitesUsed == fix.satellitesUsed)
      #expect(Set(back.satellites.map(\.number)) == Set(fix.satellites.map(\.number)), "the sky")
      #expect(Set(back.satellites.filter(\.isUsed).map(\.number)) == Set(fix.satellites.filter(\.isUsed).map(\.number)), "used")
      compared += 1
    }
    #expect(compared >= 50)
  }

  @Test func aFixWithoutAPositionSaysSoAndMakesNoneUp() throws {
    var fix = try #require(Self.fixes.first { $0.hasPosition })
    (fix.mode, fix.latitude, fix.longitude) = (.none, nil, nil)
    let text = String(decoding: FixSentences.sentences(for: fix), as: UTF8.self)
    #expect(
      text.contains("$GNRMC,")
        && text.split(separator: "\r\n").first { $0.hasPrefix("$GNRMC") }!.split(separator: ",", omittingEmptySubsequences: false)[2] == "V"
    )
    #expect(
      text.split(separator: "\r\n").first { $0.hasPrefix("$GNGGA") }!.split(separator: ",", omittingEmptySubsequences: false)[2...6] == [
        "", "", "", "", "0",
      ])
  }

  @Test(.enabled(if: PythonModules.available(["pynmeagps"]), "pynmeagps is not installed (.ci/run installs it)"))
  func pynmeagpsReadsEverySentenceWithItsChecksum() async throws {
    let bytes = Self.fixes.prefix(20).flatMap { FixSentences.sentences(for: $0) }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("fix-sentences-\(getpid()).nmea")
    try Data(bytes).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let script = """
      import sys, pynmeagps
      kinds = {}
      for line in open(sys.argv[1], 'rb').read().split(b'\\r\\n'):
          if not line: continue
          message = pynmeagps.NMEAReader.parse(line, validate=pynmeagps.VALCKSUM | pynmeagps.VALMSGID)
          kinds[message.msgID] = kinds.get(message.msgID, 0) + 1
          if message.msgID == 'GGA': assert message.quality in (1, 8), message
      print(' '.join(f'{k}={v}' for k, v in sorted(kinds.items())))
      """
    let output = try await PythonModules.run(script, arguments: [file.path])
    let sentences = bytes.split(separator: 0x0A).count
    // GPS and GLONASS: a GSA of each system an epoch.
    #expect(output.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("GGA=20 GSA=40 GSV="), "\(output) of \(sentences)")
    #expect(output.contains("RMC=20") && output.contains("VTG=20") && output.contains("ZDA=20"), "\(output)")
  }
}
