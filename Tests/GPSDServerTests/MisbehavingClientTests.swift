import Foundation
import GPSDServer
import GPSLocation
import NMEASimulation
import TestHelpers
import Testing

/// Clients that do what real ones never should: the server answers clearly, drops what it
/// must, and keeps serving everyone else.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct MisbehavingClientTests {
  static let watchJSON = #"?WATCH={"enable":true,"json":true}"#
  static let tpv = #"{"class":"TPV""#

  static func classes(_ lines: [String]) -> [String] {
    lines.compactMap { line in
      guard let range = line.range(of: #"{"class":""#) else { return nil }
      return String(line[range.upperBound...].prefix { $0 != "\"" })
    }
  }

  @Test func aRequestSplitAcrossWritesIsAnsweredWhenComplete() async throws {
    try await blocking {
      let served = try Served("sirf-nmea22-1hz.nmea", waitForClient: false)
      let client = try RawClient(port: served.port)
      client.readBlocking(for: 30) { Self.classes($0).contains("VERSION") }
      try client.send("?WAT")
      #expect(Self.classes(client.readBlocking(for: 0.3)) == ["VERSION"])
      try client.send(#"CH={"enable":true,"js"#)
      #expect(Self.classes(client.readBlocking(for: 0.3)) == ["VERSION"])
      try client.send(#"on":true}"#)  // no ';', no newline: taken as soon as the object closes
      let lines = client.readBlocking(for: 30) { Self.classes($0).contains("WATCH") }
      #expect(Array(Self.classes(lines).prefix(3)) == ["VERSION", "DEVICES", "WATCH"])
    }
  }

  @Test func anUnknownRequestAndAnOverlongLineAreTurnedDownClearly() async throws {
    try await blocking {
      let served = try Served("sirf-nmea22-1hz.nmea", waitForClient: false)
      let client = try RawClient(port: served.port)
      try client.send("?FOO;")
      var lines = client.readBlocking(for: 30) { $0.count >= 2 }
      #expect(lines.last == #"{"class":"ERROR","message":"Unrecognized request '?FOO;'"}"# + "\r")
      try client.send(String(repeating: "x", count: 9000) + "\n?VERSION;")
      lines = client.readBlocking(for: 30) { Self.classes($0).filter { $0 == "VERSION" }.count == 2 }
      #expect(Self.classes(lines) == ["VERSION", "ERROR", "ERROR", "VERSION"])
      #expect(lines[2].count < 200, "the echo is capped: \(lines[2].count) bytes")
      try client.send(#"?WATCH={"enable":true,"device":"/dev/other"}"#)
      lines = client.readBlocking(for: 30) { $0.count >= 5 }
      #expect(lines.last?.contains("No such device as /dev/other") == true)
    }
  }

  @Test func theSixtyFifthClientIsToldSoAndTheOthersAreServed() async throws {
    try await blocking {
      let served = try Served("sirf-nmea22-1hz.nmea", waitForClient: false)
      var clients: [RawClient] = []
      for _ in 0..<64 { clients.append(try RawClient(port: served.port)) }
      for client in clients { #expect(Self.classes(client.readBlocking(for: 30) { !$0.isEmpty }) == ["VERSION"]) }
      let extra = try RawClient(port: served.port)
      let refused = extra.readBlocking(for: 30) { !$0.isEmpty }
      #expect(refused.first?.contains("Too many clients") == true)
      #expect(extra.isClosedByServer)
      try clients[0].send("?VERSION;")
      #expect(Self.classes(clients[0].readBlocking(for: 30) { $0.count >= 2 }) == ["VERSION", "VERSION"])
    }
  }

  @Test func aClientThatNeverReadsIsDroppedAndNobodyElseWaits() async throws {
    try await blocking {
      // An hour's drive at a hundred times real time, with every sentence as bytes too for the
      // stuck client (twice what the reader takes): far more than the kernel's buffers hold, so
      // it soon overflows its queue, while the reader, on a busy machine, may pause for a second
      // without coming near its own limit.
      let drive = Simulation(route: Route.demoDrive.lasting(3600), profile: .ublox)
      let served = try Served(capture: .simulated(drive), speed: .multiplied(by: 100)) { $0.queueLimit = 65_536 }
      let stuck = try RawClient(port: served.port, receiveBuffer: 4096)
      try stuck.send(#"?WATCH={"enable":true,"json":true,"raw":2}"#)
      let reader = try RawClient(port: served.port)
      try reader.send(Self.watchJSON)
      // The drops are counted while the reader is still reading: once it stops, it is a client
      // that never reads too, and a busy machine may take long enough to reach the next line
      // for the server to let it go as well.
      var droppedWhileReading = 0
      let lines = reader.readBlocking(for: 30) { lines in
        droppedWhileReading = served.server.statistics.dropped
        return lines.count { $0.hasPrefix(Self.tpv) } >= 300 && droppedWhileReading > 0
      }
      #expect(lines.count { $0.hasPrefix(Self.tpv) } >= 300, "the reader kept getting fixes")
      #expect(droppedWhileReading == 1, "the stuck client was let go, and only it")
      #expect(stuck.isClosedByServer || stuck.readBlocking(for: 5).count > 0)
    }
  }

  @Test func aClientThatVanishesMidWriteHurtsNoOne() async throws {
    try await blocking {
      // Long enough that a busy machine, which may serve a few epochs a second, still reaches
      // the twentieth TPV before the drive ends: the bound is a bound, not a pace (a loaded
      // run read 13 in 5 s).
      let drive = Simulation(route: Route.demoDrive.lasting(3600), profile: .ublox)
      let served = try Served(capture: .simulated(drive), speed: .multiplied(by: 50))
      let leaving = try RawClient(port: served.port)
      try leaving.send(#"?WATCH={"enable":true,"json":true,"nmea":true}"#)
      leaving.readBlocking(for: 0.3)
      leaving.abort()
      let staying = try RawClient(port: served.port)
      try staying.send(Self.watchJSON)
      let lines = staying.readBlocking(for: 60) { $0.count { $0.hasPrefix(Self.tpv) } >= 20 }
      #expect(lines.count { $0.hasPrefix(Self.tpv) } >= 20)
    }
  }
}
