import Foundation
import Framing
import TestHelpers
import Testing

/// A receiver's byte stream split into its protocols, none lost: UBX and RTCM 3 frames out,
/// NMEA (and noise) on to the NMEA framer, however the bytes are cut.
@Suite struct StreamSplitterTests {
  static let gga = Array("$GPGGA,101519.00,4722.6140,N,00832.5020,E,1,12,0.8,408.0,M,47.3,M,,*5C\r\n".utf8)
  /// UBX-ACK-ACK for a CFG-PRT, as u-blox documents it.
  static let ackBytes: [UInt8] = [0xB5, 0x62, 0x05, 0x01, 0x02, 0x00, 0x06, 0x00, 0x0E, 0x37]
  static let rtcm = RTCM3Frame(message: [0x3E, 0xD0] + Array(repeating: 0x11, count: 17))

  /// Splits `bytes` cut into `pieces`, gathering text and frames.
  static func split(_ bytes: [UInt8], at cuts: [Int]) -> (text: [UInt8], frames: [ProtocolFrame]) {
    var splitter = StreamSplitter()
    var text: [UInt8] = []
    var frames: [ProtocolFrame] = []
    var start = 0
    for end in cuts + [bytes.count] where end >= start {
      bytes[start..<end].withUnsafeBytes { splitter.split($0, text: { text += $0 }, frame: { frames.append($0) }) }
      start = end
    }
    splitter.finish { text += $0 }
    return (text, frames)
  }

  @Test func aUBXPacketIsReadAndWrittenAsUBloxDocumentsIt() {
    let ack = UBXFrame(messageClass: 0x05, id: 0x01, payload: [0x06, 0x00])
    #expect(ack.bytes == Self.ackBytes)
    #expect(Self.split(Self.ackBytes, at: []).frames == [.ubx(ack)])
  }

  @Test func interleavedProtocolsSplitTheSameAtEveryCut() {
    let stream = Self.gga + Self.ackBytes + Self.gga + Self.rtcm.bytes + Self.gga
    let expected: [ProtocolFrame] = [.ubx(UBXFrame(messageClass: 5, id: 1, payload: [6, 0])), .rtcm3(Self.rtcm)]
    for cut in 0...stream.count {
      let (text, frames) = Self.split(stream, at: [cut])
      #expect(text == Self.gga + Self.gga + Self.gga, "cut at \(cut)")
      #expect(frames == expected, "cut at \(cut)")
    }
    #expect(Self.rtcm.messageNumber == 1005)
  }

  /// The scan that lets all-NMEA input pass without splitting finds a frame's first byte
  /// wherever it is: in any of a vector's lanes, in the tail shorter than a vector, in pieces
  /// of every length; and bytes one bit away from either are no frame's start.
  @Test func aFramesFirstByteIsFoundAtEveryPlaceOfEveryLength() {
    let splitter = StreamSplitter()
    for length in 0...150 {
      var bytes = (0..<length).map { UInt8(ascii: "A") &+ UInt8($0 % 26) }
      bytes.withUnsafeBytes { #expect(!splitter.mayHoldFrames($0), "\(length) bytes of text") }
      for nearMiss: UInt8 in [0xB4, 0xB7, 0xF5, 0x35, 0xD2, 0xD7, 0x53, 0x93] where length > 0 {
        bytes[length / 2] = nearMiss
        bytes.withUnsafeBytes { #expect(!splitter.mayHoldFrames($0), "\(nearMiss) in \(length) bytes") }
        bytes[length / 2] = UInt8(ascii: "A")
      }
      for place in 0..<length {
        for sync: UInt8 in [0xB5, 0xD3] {
          bytes[place] = sync
          // Offset by one too: the scan's loads need not be aligned.
          ([0x41] + bytes).withUnsafeBytes { raw in
            #expect(splitter.mayHoldFrames(UnsafeRawBufferPointer(rebasing: raw[1...])), "\(sync) at \(place) of \(length)")
          }
          bytes[place] = UInt8(ascii: "A") &+ UInt8(place % 26)
        }
      }
    }
  }

  @Test func aStartThatIsNoFrameIsTextAndNothingAfterItIsLost() {
    var corrupted = Self.ackBytes
    corrupted[8] ^= 0xFF  // the checksum
    // A UBX start claiming a payload longer than any packet, and a lone preamble.
    let impossible: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 0xFF, 0xFF]
    let stream = corrupted + Self.gga + impossible + Self.gga + [0xD3] + Self.gga
    let (text, frames) = Self.split(stream, at: [3, 40])
    #expect(frames.isEmpty)
    #expect(text == stream)
  }

  /// Frames thrown away are counted by protocol and reason, whatever length they claim (up to
  /// UBX's 65,535), and the sentences around them all come through.
  @Test(arguments: [0x2001, 0x8000, 0xFFFF])
  func rejectedFramesAreCountedWithTheirReason(claimedLength: Int) {
    var corrupted = Self.ackBytes
    corrupted[9] ^= 0x01  // the checksum's second byte
    let overlong: [UInt8] = [0xB5, 0x62, 0x01, 0x07, UInt8(claimedLength & 0xFF), UInt8(claimedLength >> 8)]
    var badCRC = Self.rtcm.bytes
    badCRC[badCRC.count - 1] ^= 0x80
    let stream = Self.gga + corrupted + Self.gga + overlong + Self.gga + badCRC + Self.gga + Self.ackBytes
    var splitter = StreamSplitter()
    var text: [UInt8] = []
    var frames: [ProtocolFrame] = []
    stream.withUnsafeBytes { splitter.split($0, text: { text += $0 }, frame: { frames.append($0) }) }
    splitter.finish { text += $0 }
    #expect(frames.count == 1)
    #expect(splitter.counters.rejected[.ubx] == [.badChecksum: 1, .overlong: 1])
    #expect(splitter.counters.rejected[.rtcm3] == [.badChecksum: 1])
    #expect(splitter.counters.rejectedCount == 3)
    // Every sentence is whole in the text the NMEA framer gets.
    #expect(String(decoding: text, as: UTF8.self).components(separatedBy: "$GPGGA").count == 5)
  }

  @Test func aFrameCutShortAtTheEndIsText() {
    let stream = Self.gga + Array(Self.ackBytes.prefix(7))
    let (text, frames) = Self.split(stream, at: [])
    #expect(frames.isEmpty && text == stream)
  }

  /// pyubx2's reader, an independent implementation, finds the same frames in a long random
  /// stream of NMEA, UBX packets and RTCM 3 messages with noise between them.
  @Test(.enabled(if: PythonModules.available(["pyubx2"]), "pyubx2 is not installed (pip install pyubx2)"))
  func pyubx2FindsTheSameFrames() async throws {
    var random = SplitMix(seed: 30)
    var stream: [UInt8] = []
    var expected: [ProtocolFrame] = []
    for _ in 0..<300 {
      switch random.next() % 4 {
      case 0: stream += Self.gga
      case 1:
        let frame = UBXFrame(
          messageClass: UInt8(random.next() % 256), id: UInt8(random.next() % 256),
          payload: (0..<Int(random.next() % 200)).map { _ in UInt8(random.next() % 256) })
        stream += frame.bytes
        expected.append(.ubx(frame))
      case 2:
        let frame = RTCM3Frame(message: (0..<Int(2 + random.next() % 300)).map { _ in UInt8(random.next() % 256) })
        stream += frame.bytes
        expected.append(.rtcm3(frame))
      default:
        // Noise without a frame's first byte (it would be a valid start only by chance).
        stream += (0..<Int(random.next() % 20)).map { _ in UInt8(random.next() % 128) }.filter { $0 != 0x24 }
      }
    }
    let (_, frames) = Self.split(stream, at: [1000, 1001, 5000])
    #expect(frames == expected)

    let path = FileManager.default.temporaryDirectory.appendingPathComponent("splitter-\(getpid()).bin").path
    try Data(stream).write(to: URL(fileURLWithPath: path))
    defer { unlink(path) }
    let script = """
      import sys
      from pyubx2 import UBXReader
      with open(sys.argv[1], 'rb') as f:
          for raw, _ in UBXReader(f, protfilter=6, quitonerror=0, parsing=0):
              print(raw.hex())
      """
    let output = try await PythonModules.run(script, arguments: [path])
    let theirs = output.split(separator: "\n").map(String.init)
    let ours = frames.map { $0.bytes.map { String(format: "%02x", $0) }.joined() }
    #expect(theirs == ours)
  }
}

/// A small deterministic generator for test streams.
struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
