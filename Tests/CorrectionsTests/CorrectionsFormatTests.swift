import Foundation
import Framing
import NMEA
import NMEASimulation
import TestHelpers
import Testing

@testable import Corrections

/// What an NTRIP client reads and writes, byte by byte: addresses, casters' answers, chunks,
/// sourcetables, RTCM 3 frames and the GGA sent up.
struct CorrectionsFormatTests {
  @Test func anAddressNeverSaysItsCredentials() throws {
    let address = try #require(NTRIPAddress(parsing: "ntrip://rover:s3cret@caster.example.org:2102/BASE1"))
    #expect(address.host == "caster.example.org" && address.port == 2102 && address.mountpoint == "BASE1")
    #expect(address.user == "rover" && address.password == "s3cret")
    #expect(address.description == "ntrip://caster.example.org:2102/BASE1")
    #expect(address.authorization == "Basic cm92ZXI6czNjcmV0")
    #expect(NTRIPAddress(parsing: "caster.example.org/BASE1")?.port == 2101)
    #expect(NTRIPAddress(parsing: "ntrip://[::1]:2101/BASE1")?.host == "::1")
    for bad in ["ntrip://caster.example.org", "http://caster/BASE1", "ntrip://caster:99999/BASE1", "ntrip://caster/a/b", "ntrip:///BASE1"] {
      #expect(NTRIPAddress(parsing: bad) == nil, "\(bad)")
    }
  }

  @Test func eachKindOfAnswerIsKnown() {
    func read(_ text: String) -> NTRIPResponse? { NTRIPResponse.read(Array(text.utf8))?.0 }
    #expect(read("ICY 200 OK\r\n\u{D3}") == .stream(version: 1, chunked: false))
    #expect(
      read("HTTP/1.1 200 OK\r\nNtrip-Version: Ntrip/2.0\r\nTransfer-Encoding: chunked\r\nContent-Type: gnss/data\r\n\r\n")
        == .stream(version: 2, chunked: true))
    #expect(read("SOURCETABLE 200 OK\r\nContent-Length: 10\r\n\r\nSTR;A;") == .sourcetable(chunked: false))
    #expect(read("HTTP/1.1 200 OK\r\nContent-Type: gnss/sourcetable\r\n\r\n") == .sourcetable(chunked: false))
    #expect(read("HTTP/1.0 401 Unauthorized\r\n\r\n") == .unauthorized)
    #expect(read("HTTP/1.1 404 Not Found\r\n\r\n") == .refused("HTTP/1.1 404 Not Found"))
    #expect(read("\u{1}\u{2}garbage and more garbage\n\n") == .garbage)
    #expect(read("HTTP/1.1 200 OK\r\nContent-Type: gnss/data\r\n") == nil)  // the head goes on
    #expect(NTRIPResponse.read([UInt8](repeating: 0x41, count: 9000))?.0 == .garbage)
  }

  @Test func chunksAreUnwrappedAcrossReadsAndABrokenSizeIsCaught() {
    var decoder = ChunkedDecoder()
    let coded = Array("5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n".utf8)
    var output: [UInt8] = []
    for byte in coded { output += decoder.decode([byte]) }
    #expect(String(decoding: output, as: UTF8.self) == "hello world")
    #expect(decoder.ended)
    var broken = ChunkedDecoder()
    _ = broken.decode(Array("zz\r\nhello".utf8))
    #expect(broken.failed)
  }

  @Test func aSourcetableSaysWhichMountpointsWantGGA() {
    let table = Sourcetable(
      text: """
        SOURCETABLE 200 OK
        CAS;caster.example.org;2101;Example;;0;DEU;52.5;13.4;;;
        STR;VRS3;Berlin VRS;RTCM 3.2;1005(10),1074(1),1084(1);2;GPS+GLO;SAPOS;DEU;52.52;13.40;1;1;Trimble;none;B;N;9600;
        STR;BASE1;Potsdam;RTCM 3;1006(10),1077(1);2;GPS;;DEU;52.39;13.06;0;0;;none;N;N;2400;
        STR;BASE2;
        ENDSOURCETABLE
        """)
    #expect(table.mountpoints.map(\.name) == ["VRS3", "BASE1", "BASE2"])
    #expect(table["VRS3"]?.wantsGGA == true && table["BASE1"]?.wantsGGA == false)
    #expect(table["VRS3"]?.messages == "1005(10),1074(1),1084(1)")
    let distance = table["BASE1"]?.distance(fromLatitude: 52.52, longitude: 13.40) ?? 0
    #expect(abs(distance - 27_600) < 1_500, "\(distance)")
  }

  /// Good frames come out whole and in order; a bad CRC, noise and a cut frame are counted
  /// and dropped; the longest frame (1,023 bytes) passes.
  @Test func framesAreCheckedAndCountedByReason() {
    let station = RTCMWriter(latitude: 47.3779, longitude: 8.5427, height: 457)
    let good = station.frames(secondOfWeek: 100)
    var corrupted = good[1].bytes
    corrupted[corrupted.count - 1] ^= 0xFF
    let longest = RTCM3Frame(message: [0x43, 0x50] + [UInt8](repeating: 0x55, count: 1021))
    var stream = CorrectionStream()
    var frames = stream.take(Array("noise".utf8) + good[0].bytes + corrupted)
    frames += stream.take(longest.bytes + Array(good[1].bytes.prefix(10)))
    frames += stream.take(Array(good[1].bytes.dropFirst(10)))
    #expect(frames.map(\.bytes) == [good[0].bytes, longest.bytes, good[1].bytes])
    // (A frame's start seen again inside the bad one's bytes may count once more.)
    #expect((stream.rejects["bad checksum"] ?? 0) >= 1, "\(stream.rejects)")
    #expect(stream.messageTypes == [1005: 1, 1074: 1, 1077: 1])
    let coordinate = stream.station?.coordinate
    #expect(stream.station?.id == 1234)
    #expect(abs((coordinate?.latitude ?? 0) - 47.3779) < 1e-6 && abs((coordinate?.longitude ?? 0) - 8.5427) < 1e-6)
  }

  /// pyrtcm, an independent RTCM 3 parser, reads the simulated station's stream to the same
  /// messages and the position this side decodes.
  @Test(.enabled(if: PythonModules.available(["pyrtcm"]), "pyrtcm is not installed (pip install pyrtcm)"))
  func pyrtcmReadsTheSimulatedStationAsWeDo() async throws {
    let station = RTCMWriter(latitude: 47.3779, longitude: 8.5427, height: 457)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("station-\(UUID().uuidString).rtcm")
    defer { try? FileManager.default.removeItem(at: file) }
    try Data(station.stream(seconds: 3, start: 200)).write(to: file)
    let script = """
      from pyrtcm import RTCMReader
      for raw, message in RTCMReader(open("\(file.path)", "rb")):
          print(message.identity, message.DF003, getattr(message, "DF025", ""), getattr(message, "NSat", ""))
      """
    let output = try await PythonModules.run(script, arguments: [])
    let lines = output.split(separator: "\n").map(String.init)
    #expect(lines.count == 6, "\(output)")
    var ours = CorrectionStream()
    _ = ours.take(station.stream(seconds: 1, start: 200))
    let x = try #require(ours.station?.x)
    #expect(lines.first == "1005 1234 \((x * 10_000).rounded() / 10_000) ", "\(lines)")
    #expect(lines[1] == "1074 1234  8", "\(lines)")
  }

  @Test func onlyAFixTheReceiverVouchesForGoesUp() throws {
    var fix = Fix(
      time: UTCTime(hour: 12, minute: 34, second: 56, nanosecond: 500_000_000), timestamp: UTCTimestamp(nanosecondsSince1970: 1),
      mode: .threeD, quality: .rtkFloat, latitude: -33.8688, longitude: 151.2093, altitude: 58.2, geoidSeparation: 22.1,
      satellitesUsed: 14, hdop: 0.7)
    let sentence = try #require(UpstreamGGA.sentence(for: fix, age: .seconds(1)))
    let text = String(decoding: sentence, as: UTF8.self)
    #expect(text.hasPrefix("$GPGGA,123456.50,3352.12800,S,15112.55800,E,5,14,0.7,58.2,M,22.1,M,,*"), "\(text)")
    #expect(text.hasSuffix("\r\n"))
    let body = text.dropFirst().prefix { $0 != "*" }
    let checksum = body.utf8.reduce(UInt8(0), ^)
    #expect(text.contains("*" + String(checksum, radix: 16, uppercase: true).leftPadded(2)), "\(text)")
    #expect(UpstreamGGA.sentence(for: fix, age: .seconds(30)) == nil)  // stale
    fix.timestamp = nil
    #expect(UpstreamGGA.sentence(for: fix, age: .zero) == nil)  // no date: the receiver did not vouch
    fix.timestamp = UTCTimestamp(nanosecondsSince1970: 1)
    fix.quality = .invalid
    #expect(UpstreamGGA.sentence(for: fix, age: .zero) == nil)
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
