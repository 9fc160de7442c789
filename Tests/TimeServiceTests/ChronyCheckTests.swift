import Foundation
import TestHelpers
import Testing
import TimeService

/// What chrony makes of its reference clocks, read from chronyc's own output, and said with
/// what to do.
@Suite struct ChronyCheckTests {
  static let sources = """
    #,*,GPS,0,4,377,12,-0.000123000,-0.000125000,0.000456000
    #,+,PPS,0,4,377,12,0.000002000,0.000002000,0.000001000
    #,x,NMEA,0,4,377,12,0.480000000,-0.480000000,0.010000000
    #,~,JIT,0,4,377,12,0.010000000,0.010000000,0.050000000
    #,?,GONE,0,4,0,4294967295,0.000000000,0.000000000,0.000000000
    #,-,MON,0,4,377,12,0.001000000,0.001000000,0.000100000
    ^,-,192.0.2.1,2,6,377,33,0.001000000,0.001000000,0.020000000
    """

  @Test func eachStateIsSaidWithWhatToDo() {
    var check = ChronyCheck(csv: Self.sources)
    check.readSelectData("M,MON,N,N,-,-,-,-,N,-,-,-,-,0,1.0,0.000000000,0.000000000,Not synchronised\n")
    #expect(check.sources.count == 7)
    #expect(check.referenceClocks.map(\.name) == ["GPS", "PPS", "NMEA", "JIT", "GONE", "MON"])
    #expect(check.usesReferenceClock)
    let findings = check.findings
    #expect(findings[0] == "GPS: selected: chrony steers the clock by it (offset -0.1 ms).")
    #expect(findings[1] == "PPS: combined with the selected source (offset 0.0 ms).")
    #expect(findings[2].hasPrefix("NMEA: a falseticker: chrony's other sources disagree with it (offset -480.0 ms)."))
    #expect(findings[2].contains("set 'offset 0.48' on its refclock line"))
    #expect(findings[3].hasPrefix("JIT: too variable"))
    #expect(findings[4].hasPrefix("GONE: reach 0: chrony got no samples from it."))
    #expect(findings[5].hasPrefix("MON: noselect: chrony measures it (offset 1.0 ms) but never uses it."))
  }

  @Test func noReferenceClockIsSaidWithTheLineToAdd() {
    let check = ChronyCheck(csv: "^,*,192.0.2.1,2,6,377,33,0.001,0.001,0.02\n")
    #expect(!check.usesReferenceClock)
    #expect(
      check.findings == [
        "chrony has no refclock: add one to chrony.conf, such as 'refclock SOCK /run/chrony.gps.sock refid GPS poll 2 filter 4 offset 0.0', restart chrony, and run 'gpsbridge serve --device PATH --chrony /run/chrony.gps.sock'."
      ])
  }

  @Test func garbageIsNoSource() {
    #expect(ChronyCheck(csv: "506 Cannot talk to daemon\n#,*,X\n,,,,,,,,,\n").sources.isEmpty)
  }

  /// `gpsbridge time` against a real chronyd: no refclock, a refclock nothing feeds, and one
  /// that is only monitored are each said, and none is "chrony uses our time" (exit 1).
  @Test(.enabled(if: Chronyd.isAvailable, "needs chronyd and chronyc, as root (Debian: chrony)"))
  func theTimeCommandSaysWhatARealChronydMakesOfItsRefclocks() async throws {
    let gpsbridge = URL(fileURLWithPath: Gpsbridge.executable)
    let cases: [([String], [String])] = [
      ([], ["chrony has no refclock"]),
      (["refclock SOCK /tmp/gpsbridge-time-gps-\(getpid()).sock refid GPS"], ["GPS: reach 0: chrony got no samples from it."]),
      (["refclock SOCK /tmp/gpsbridge-time-mon-\(getpid()).sock refid MON noselect"], ["MON: noselect: chrony measures it"]),
    ]
    defer {
      // chronyd leaves the sockets of its SOCK refclocks when it is killed.
      unlink("/tmp/gpsbridge-time-gps-\(getpid()).sock")
      unlink("/tmp/gpsbridge-time-mon-\(getpid()).sock")
    }
    for (refclocks, said) in cases {
      let chronyd = try Chronyd(
        refclocks: refclocks, directory: scratchDirectory("chrony-time-\(UUID().uuidString.prefix(8))").appendingPathComponent("chrony"))
      try chronyd.start()
      defer { chronyd.stop() }
      try await waitUntilExists(chronyd.commandSocket)
      try await chronyd.waitUntilAnswering()
      let result = try await runProgram(gpsbridge, ["time", "--chrony-control", chronyd.commandSocket])
      #expect(result.status == 1, "\(refclocks): \(result.output) \(result.error)")
      for text in said { #expect(result.output.contains(text), "\(refclocks): \(result.output) \(result.error)") }
      #expect(result.error.contains("Error: chrony does not steer the clock by any of its reference clocks"), "\(result.error)")
    }
  }

  @Test func noChronydThereIsAClearError() async throws {
    let result = try await runProgram(
      URL(fileURLWithPath: Gpsbridge.executable), ["time", "--chrony-control", "/tmp/gpsbridge-no-chronyd-\(getpid()).sock"])
    #expect(result.status == 1)
    #expect(
      result.error.hasPrefix("Error: chronyc could not ask chrony at /tmp/gpsbridge-no-chronyd-")
        || result.error.hasPrefix("Error: chronyc is not installed"), "\(result.error)")
  }
}
