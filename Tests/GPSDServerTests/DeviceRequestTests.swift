import Foundation
import TestHelpers
import Testing

/// `?DEVICE={…}` is read as JSON, as gpsd reads it: a key written with escapes is the same key,
/// so a change asked that way is refused like a plain one, and a path named that way is found.
@Suite(.timeLimit(.minutes(3)))
struct DeviceRequestTests {
  /// The first answer to `request` on a fresh connection to `served` (after gpsd's banner).
  static func answer(to request: String, from served: Served) async throws -> String {
    let client = try RawClient(port: served.port)
    try client.send(request)
    let lines = await client.read(for: 5) { lines in
      lines.contains { $0.contains(#""class":"ERROR""#) || $0.contains(#""class":"DEVICE","#) }
    }
    return lines.first { $0.contains(#""class":"ERROR""#) || $0.contains(#""class":"DEVICE","#) } ?? "\(lines)"
  }

  @Test(arguments: [#"{"bps":4800}"#, #"{"b\u0070s":4800}"#, #"{"\u0063ycle":0.2}"#, #"{"path":"x","n\u0061tive":1}"#])
  func aChangeOfSettingsIsRefusedHoweverItsKeyIsWritten(object: String) async throws {
    let served = try Served("sirf-nmea22-1hz.nmea", waitForClient: false)
    let answer = try await Self.answer(to: "?DEVICE=\(object);", from: served)
    #expect(answer.contains("gpsbridge serves its receiver read-only"), "\(answer)")
  }

  @Test func aPathWrittenWithEscapesNamesTheDevice() async throws {
    // At real time, started by a client that watches and stays: the replay's device is there
    // for the capture's two minutes, however busy the machine.
    let served = try Served("sirf-nmea22-1hz.nmea", speed: 1)
    let watcher = try RawClient(port: served.port)
    try watcher.send(#"?WATCH={"enable":true,"json":true};"#)
    // The served device is the replay's path: named with every "/" escaped.
    let escaped = served.capturePath.replacingOccurrences(of: "/", with: #"\/"#)
    var answer = ""
    // Until the replay's device is there (a loaded full run took more than 10 s to start it).
    _ = try await eventually(timeout: .seconds(60), every: .milliseconds(100)) {
      answer = try await Self.answer(to: #"?DEVICE={"p\u0061th":"\#(escaped)"};"#, from: served)
      return answer.contains(#""class":"DEVICE""#)
    }
    #expect(answer.hasPrefix(#"{"class":"DEVICE","path":"\#(served.capturePath)""#), "\(answer)")
    withExtendedLifetime(watcher) {}
  }

  @Test func anObjectThatIsNoJSONIsAnError() async throws {
    let served = try Served("sirf-nmea22-1hz.nmea", waitForClient: false)
    let answer = try await Self.answer(to: #"?DEVICE={"bps" 4800};"#, from: served)
    #expect(answer.contains(#""class":"ERROR""#), "\(answer)")
  }
}
