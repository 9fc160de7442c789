import Foundation
import TestHelpers
import Testing

@testable import Framing

/// The commands gpsbridge writes to u-blox M8, MediaTek and SiRF receivers, held to independent
/// implementations: pyubx2 reads each UBX frame to the message and values meant, gpsbridge reads
/// the blocks pyubx2 builds as an M8 sends them, and pynmeagps accepts the checksums of the
/// PMTK and PSRF sentences.
@Suite struct LegacyConfigurationTests {
  static func hex(_ frame: UBXFrame) -> String { frame.bytes.map { String(format: "%02x", $0) }.joined() }

  static func frame(_ hex: some StringProtocol) -> UBXFrame? {
    let bytes = stride(from: 0, to: hex.count, by: 2).compactMap { UInt8(hex.dropFirst($0).prefix(2), radix: 16) }
    var found: UBXFrame?
    var splitter = StreamSplitter()
    bytes.withUnsafeBytes { splitter.split($0, text: { _ in }, frame: { if case .ubx(let ubx) = $0 { found = ubx } }) }
    return found
  }

  @Test func aBlockChangedKeepsWhatItDoesNotName() throws {
    var port = UBXPortSettings(baudRate: 9600)
    port.payload[16] = 0x02  // extendedTxTimeout, as a receiver may report it
    port.baudRate = 115_200
    port.outputProtocols = 0x01
    let read = try #require(UBXPortSettings(port.frame))
    #expect(read.baudRate == 115_200 && read.outputProtocols == 0x01 && read.payload[16] == 0x02)
    var gnss = UBXSystemSettings(blocks: [(0, 8, 16, true), (6, 8, 14, true), (2, 4, 8, false)])
    gnss.enable([6: false, 2: true])
    #expect(UBXSystemSettings(gnss.frame)?.enabled == [0: true, 6: false, 2: true])
  }

  @Test func proprietarySentencesCarryTheirChecksums() {
    #expect(String(decoding: MTKSentence.fixInterval(200).bytes, as: UTF8.self) == "$PMTK220,200*2C\r\n")
    #expect(String(decoding: MTKSentence.baudRate(115_200).bytes, as: UTF8.self) == "$PMTK251,115200*1F\r\n")
    #expect(String(decoding: MTKSentence.queryRelease.bytes, as: UTF8.self) == "$PMTK605*31\r\n")
    #expect(String(decoding: SiRFSentence.sentenceRate(0, seconds: 1).bytes, as: UTF8.self) == "$PSRF103,00,00,01,01*25\r\n")
    #expect(ProprietarySentence(line: Array("$PMTK001,220,3*30\r\n".utf8)).flatMap(MTKSentence.acknowledgement)! == (220, 3))
    #expect(ProprietarySentence(line: Array("$PMTK001,220,3*31".utf8)) == nil)
    #expect(ProprietarySentence(line: Array("$GPGGA,1*7F".utf8)) == nil)
  }

  /// Every UBX frame gpsbridge writes to an M8, read by pyubx2: sets as sets, polls as polls.
  @Test(.enabled(if: PythonModules.available(["pyubx2"]), "pyubx2 is not installed (pip install pyubx2)"))
  func pyubx2ReadsOurM8FramesAsWeMeantThem() async throws {
    var port = UBXPortSettings(baudRate: 115_200)
    port.outputProtocols = 0x01
    var gnss = UBXSystemSettings(blocks: [(0, 8, 16, true), (6, 8, 14, false)])
    gnss.enable([6: true])
    let frames: [(UBXFrame, Int)] = [
      (port.frame, 1), (UBXPortSettings.poll, 2), (UBXRateSettings(measurementPeriod: 100).frame, 1), (UBXRateSettings.poll, 2),
      (UBXMessageRate(messageClass: 0xF0, id: 0x04, rates: [0, 1, 0, 1]).frame, 1), (UBXMessageRate.poll(messageClass: 0xF0, id: 0x08), 2),
      (gnss.frame, 1), (UBXNavigationSettings(dynamicModel: 4).frame, 1), (UBXTimePulseSettings(period: 500_000, width: 50_000).frame, 1),
      (.saveSettings, 1),
    ]
    let script = """
      import sys
      from pyubx2 import UBXReader
      for line in sys.argv[1:]:
          hexbytes, mode = line.split(':')
          print(UBXReader.parse(bytes.fromhex(hexbytes), msgmode=int(mode), parsebitfield=1))
      """
    let parsed = try await PythonModules.run(script, arguments: frames.map { "\(Self.hex($0.0)):\($0.1)" })
      .split(separator: "\n").map(String.init)
    try #require(parsed.count == frames.count, "\(parsed)")
    let expected = [
      ["CFG-PRT", "portID=1", "baudRate=115200", "charLen=3", "inUBX=1", "inNMEA=1", "inRTCM3=1", "outUBX=1", "outNMEA=0"],
      ["CFG-PRT", "portID=1"],
      ["CFG-RATE", "measRate=100", "navRate=1", "timeRef=1"],
      ["CFG-RATE"],
      ["CFG-MSG", "msgClass=NMEA-Standard", "msgID=RMC", "rateDDC=0", "rateUART1=1", "rateUART2=0", "rateUSB=1"],
      ["CFG-MSG", "msgClass=NMEA-Standard", "msgID=ZDA"],
      ["CFG-GNSS", "numConfigBlocks=2", "gnssId_01=GPS", "enable_01=1", "gnssId_02=GLONASS", "enable_02=1", "maxTrkCh_02=14"],
      ["CFG-NAV5", "dyn=1", "minEl=0", "dynModel=4"],
      [
        "CFG-TP5", "tpIdx=0", "freqPeriod=500000", "freqPeriodLock=500000", "pulseLenRatioLock=50000", "active=1", "isLength=1", "isFreq=0",
      ],
      // Ports, messages, information, navigation and receiver manager saved; nothing cleared or loaded.
      ["CFG-CFG", "clearMask=b'\\x00\\x00\\x00\\x00'", "saveMask=b'\\x1f\\x00\\x00\\x00'", "loadMask=b'\\x00", "devBBR=1", "devFlash=1"],
    ]
    for (line, wanted) in zip(parsed, expected) {
      for part in wanted { #expect(line.contains(part), "\(part) in \(line)") }
    }
  }

  /// The blocks an M8 sends, built by pyubx2, read by gpsbridge to the same values.
  @Test(.enabled(if: PythonModules.available(["pyubx2"]), "pyubx2 is not installed (pip install pyubx2)"))
  func weReadPyubx2sM8Blocks() async throws {
    let script = """
      from pyubx2 import UBXMessage, GET
      print(UBXMessage('CFG', 'CFG-PRT', GET, portID=1, charLen=3, parity=4, baudRate=38400, inUBX=1, inNMEA=1, outNMEA=1).serialize().hex())
      print(UBXMessage('CFG', 'CFG-RATE', GET, measRate=200, navRate=1, timeRef=1).serialize().hex())
      print(UBXMessage('CFG', 'CFG-MSG', GET, msgClass=240, msgID=3, rateUART1=5).serialize().hex())
      print(UBXMessage('CFG', 'CFG-GNSS', GET, msgVer=0, numTrkChHw=32, numTrkChUse=32, numConfigBlocks=2,
          gnssId_01=0, resTrkCh_01=8, maxTrkCh_01=16, enable_01=1, sigCfMask_01=1,
          gnssId_02=6, resTrkCh_02=8, maxTrkCh_02=14, enable_02=0, sigCfMask_02=1).serialize().hex())
      print(UBXMessage('CFG', 'CFG-NAV5', GET, dyn=1, dynModel=5).serialize().hex())
      print(UBXMessage('CFG', 'CFG-TP5', GET, tpIdx=0, version=1, freqPeriod=1000000, freqPeriodLock=1000000,
          pulseLenRatio=0, pulseLenRatioLock=100000, active=1, lockGnssFreq=1, isLength=1).serialize().hex())
      """
    let lines = try await PythonModules.run(script, arguments: []).split(separator: "\n")
    try #require(lines.count == 6)
    let port = try #require(Self.frame(lines[0]).flatMap(UBXPortSettings.init))
    #expect(port.baudRate == 38_400 && port.outputProtocols == 0x02)
    #expect(Self.frame(lines[1]).flatMap(UBXRateSettings.init)?.measurementPeriod == 200)
    let message = try #require(Self.frame(lines[2]).flatMap(UBXMessageRate.init))
    #expect(message.messageClass == 0xF0 && message.id == 3 && message.onUART1 == 5)
    #expect(Self.frame(lines[3]).flatMap(UBXSystemSettings.init)?.enabled == [0: true, 6: false])
    #expect(Self.frame(lines[4]).flatMap(UBXNavigationSettings.init)?.dynamicModel == 5)
    let pulse = try #require(Self.frame(lines[5]).flatMap(UBXTimePulseSettings.init))
    #expect(pulse.period == 1_000_000 && pulse.width == 100_000)
  }

  /// pynmeagps accepts the checksum of every PMTK and PSRF sentence gpsbridge writes, and reads
  /// its fields as written.
  @Test(.enabled(if: PythonModules.available(["pynmeagps"]), "pynmeagps is not installed (pip install pynmeagps)"))
  func pynmeagpsAcceptsOurProprietarySentences() async throws {
    let sentences =
      [
        MTKSentence.fixInterval(100), MTKSentence.fixInterval(1000), MTKSentence.baudRate(115_200), MTKSentence.baudRate(9600),
        MTKSentence.sentenceRates([0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]),
        MTKSentence.systems(gps: true, glonass: true, galileo: false, beidou: true), MTKSentence.queryRelease,
        MTKSentence.querySentenceRates, MTKSentence.queryFixInterval, SiRFSentence.serialPort(baudRate: 38_400),
      ] + SiRFSentence.messageNumbers.values.sorted().map { SiRFSentence.sentenceRate($0, seconds: $0 % 2) }
    let script = """
      import sys
      from pynmeagps import NMEAReader, VALCKSUM
      for line in sys.argv[1:]:
          message = NMEAReader.parse(line.encode() + b"\\r\\n", validate=VALCKSUM)
          fields = [getattr(message, name) for name in sorted(vars(message)) if name.startswith('field_')]
          print(",".join([message.talker + message.msgID] + [str(field) for field in fields]))
      """
    let arguments = sentences.map { String(decoding: $0.bytes.dropLast(2), as: UTF8.self) }
    let parsed = try await PythonModules.run(script, arguments: arguments).split(separator: "\n").map(String.init)
    #expect(parsed == sentences.map { ([$0.address] + $0.fields).joined(separator: ",") })
  }
}
