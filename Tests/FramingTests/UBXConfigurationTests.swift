import Foundation
import Framing
import TestHelpers
import Testing

/// gpsbridge's UBX configuration frames, read back by gpsbridge and by pyubx2, an independent
/// implementation, to the same messages and values.
@Suite struct UBXConfigurationTests {
  static let rate = ConfigurationKey(0x3021_0001)  // CFG-RATE-MEAS, 2 bytes
  static let gga = ConfigurationKey(0x2091_00BB)  // CFG-MSGOUT-NMEA_ID_GGA_UART1, 1 byte
  static let glonass = ConfigurationKey(0x1031_0025)  // CFG-SIGNAL-GLO_ENA, 1 bit
  static let baud = ConfigurationKey(0x4052_0001)  // CFG-UART1-BAUDRATE, 4 bytes

  @Test func keysKnowTheirValuesSizes() {
    #expect([Self.glonass, Self.gga, Self.rate, Self.baud].map(\.valueSize) == [1, 1, 2, 4])
  }

  @Test func aValueSetReadsBackAsItWasWritten() throws {
    let values: [(ConfigurationKey, UInt64)] = [(Self.rate, 200), (Self.gga, 1), (Self.glonass, 0), (Self.baud, 115_200)]
    let frame = UBXFrame.valueSet(values, layers: [.batteryBacked, .flash])
    let request = try #require(frame.configurationRequest)
    #expect(request.layer == 0x06)
    #expect(request.keys == values.map(\.0))
    #expect(request.values == Dictionary(uniqueKeysWithValues: values))
    let answer = UBXFrame.valueGetAnswer(values)
    #expect(answer.configurationValues?.values == Dictionary(uniqueKeysWithValues: values))
    #expect(UBXFrame.acknowledgement(of: frame, accepted: false).acknowledgement! == (false, 0x06, 0x8A))
  }

  @Test func aVersionReadsBack() throws {
    let version = UBXVersion(software: "HPG 1.32", hardware: "00190000", extensions: ["PROTVER=27.31", "MOD=ZED-F9P"])
    let read = try #require(UBXVersion(version.frame))
    #expect(read == version && read.generation == 9 && read.module == "ZED-F9P")
    #expect(UBXVersion(software: "ROM SPG 5.10", hardware: "000A0000", extensions: ["PROTVER=34.10"]).generation == 10)
    #expect(UBXVersion(software: "ROM CORE 3.01", hardware: "00080000", extensions: ["PROTVER=18.00"]).generation == 8)
  }

  @Test(.enabled(if: PythonModules.available(["pyubx2"]), "pyubx2 is not installed (pip install pyubx2)"))
  func pyubx2ReadsOurFramesAsWeMeantThem() async throws {
    let values: [(ConfigurationKey, UInt64)] = [(Self.rate, 200), (Self.gga, 1), (Self.glonass, 0), (Self.baud, 115_200)]
    let frames: [(UBXFrame, Int)] = [
      (.valueSet(values, layers: [.ram]), 1), (.valueGet(values.map(\.0)), 2), (.valueGetAnswer(values), 0), (.versionPoll, 2),
      (UBXVersion(software: "HPG 1.32", hardware: "00190000", extensions: ["PROTVER=27.31", "MOD=ZED-F9P"]).frame, 0),
    ]
    let script = """
      import sys
      from pyubx2 import UBXReader
      for line in sys.stdin if False else sys.argv[1:]:
          hexbytes, mode = line.split(':')
          print(UBXReader.parse(bytes.fromhex(hexbytes), msgmode=int(mode)))
      """
    let arguments = frames.map { frame, mode in frame.bytes.map { String(format: "%02x", $0) }.joined() + ":\(mode)" }
    let parsed = try await PythonModules.run(script, arguments: arguments).split(separator: "\n").map(String.init)
    #expect(parsed.count == 5)
    guard parsed.count == 5 else { return }
    #expect(
      parsed[0].contains("CFG-VALSET") && parsed[0].contains("ram=1, bbr=0, flash=0")
        && parsed[0].contains("CFG_RATE_MEAS=200, CFG_MSGOUT_NMEA_ID_GGA_UART1=1, CFG_SIGNAL_GLO_ENA=0, CFG_UART1_BAUDRATE=115200"),
      "\(parsed[0])")
    #expect(
      parsed[1].contains("CFG-VALGET") && parsed[1].contains("layer=0") && parsed[1].contains("keys_01=\(Self.rate.rawValue)"),
      "\(parsed[1])")
    #expect(
      parsed[2].contains("CFG-VALGET") && parsed[2].contains("CFG_RATE_MEAS=200") && parsed[2].contains("CFG_UART1_BAUDRATE=115200"),
      "\(parsed[2])")
    #expect(parsed[3] == "<UBX(MON-VER)>", "\(parsed[3])")
    // pyubx2 shows the fixed-size text fields as bytes, NUL padding and all.
    #expect(
      parsed[4].contains("MON-VER, swVersion=b'HPG 1.32\\x00") && parsed[4].contains("hwVersion=b'00190000\\x00\\x00'")
        && parsed[4].contains("extension_01=b'PROTVER=27.31\\x00") && parsed[4].contains("extension_02=b'MOD=ZED-F9P\\x00"),
      "\(parsed[4])")
  }

  /// Frames pyubx2 builds read the same in gpsbridge.
  @Test(.enabled(if: PythonModules.available(["pyubx2"]), "pyubx2 is not installed (pip install pyubx2)"))
  func weReadPyubx2sFrames() async throws {
    let script = """
      from pyubx2 import UBXMessage
      print(UBXMessage.config_set(6, 0, [("CFG_RATE_MEAS", 100), ("CFG_SIGNAL_GAL_ENA", 1)]).serialize().hex())
      print(UBXMessage.config_poll(0, 0, ["CFG_UART1_BAUDRATE"]).serialize().hex())
      """
    let lines = try await PythonModules.run(script, arguments: []).split(separator: "\n").map(String.init)
    func frame(_ hex: String) -> UBXFrame? {
      let bytes = stride(from: 0, to: hex.count, by: 2).compactMap { UInt8(hex.dropFirst($0).prefix(2), radix: 16) }
      var found: UBXFrame?
      var splitter = StreamSplitter()
      bytes.withUnsafeBytes { splitter.split($0, text: { _ in }, frame: { if case .ubx(let ubx) = $0 { found = ubx } }) }
      return found
    }
    let set = try #require(lines.first.flatMap(frame)?.configurationRequest)
    #expect(set.layer == 6 && set.values == [Self.rate: 100, ConfigurationKey(0x1031_0021): 1])
    let poll = try #require(lines.dropFirst().first.flatMap(frame)?.configurationRequest)
    #expect(poll.keys == [Self.baud])
  }
}
