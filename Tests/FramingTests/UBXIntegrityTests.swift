import Foundation
import Framing
import NMEASimulation
import TestHelpers
import Testing

/// u-blox's integrity messages (MON-HW, MON-RF, NAV-STATUS, SEC-SIG 1 and 2) as pyubx2, an
/// independent implementation, builds them from random field values, read by gpsbridge to
/// the values pyubx2 reads back from the same bytes. Values beyond a field's table are among
/// them: they read as unknown.
@Suite(.enabled(if: PythonModules.available(["pyubx2"]), "pyubx2 is not installed (pip install pyubx2)"))
struct UBXIntegrityTests {
  /// One frame as pyubx2 made it, and the fields pyubx2 reads from it.
  struct Sample: Decodable {
    var hex: String
    var fields: [String: Int]

    var frame: UBXFrame? {
      let bytes = stride(from: 0, to: hex.count, by: 2).compactMap { UInt8(hex.dropFirst($0).prefix(2), radix: 16) }
      var frames: [UBXFrame] = []
      var splitter = StreamSplitter()
      bytes.withUnsafeBytes { splitter.split($0, text: { _ in }, frame: { if case .ubx(let frame) = $0 { frames.append(frame) } }) }
      return frames.count == 1 ? frames[0] : nil
    }

    subscript(_ name: String) -> Int { fields[name] ?? -1 }
  }

  static let script = """
    import json, random
    from pyubx2 import UBXMessage, UBXReader, GET
    random.seed(48)
    def emit(message, names):
        data = message.serialize()
        parsed = UBXReader.parse(data)
        print(json.dumps({"hex": data.hex(), "fields": {n: getattr(parsed, n) for n in names if hasattr(parsed, n)}}))
    for _ in range(1000):
        emit(UBXMessage('MON', 'MON-HW', GET, noisePerMS=random.randrange(65536), agcCnt=random.randrange(8192),
            aStatus=random.randrange(8), aPower=random.randrange(4), jammingState=random.randrange(4),
            jamInd=random.randrange(256), rtcCalib=random.randrange(2), xtalAbsent=random.randrange(2)),
            ["noisePerMS", "agcCnt", "aStatus", "aPower", "jammingState", "jamInd"])
        blocks = random.randrange(4)
        fields = {"version": 0, "nBlocks": blocks}
        names = ["nBlocks"]
        for b in range(1, blocks + 1):
            values = {"blockId": random.randrange(3), "jammingState": random.randrange(4), "antStatus": random.randrange(8),
                "antPower": random.randrange(4), "noisePerMS": random.randrange(65536), "agcCnt": random.randrange(8192),
                "jamInd": random.randrange(256), "ofsI": random.randrange(-128, 128), "magI": random.randrange(256)}
            for name, value in values.items():
                fields[f"{name}_{b:02d}"] = value
                names.append(f"{name}_{b:02d}")
        emit(UBXMessage('MON', 'MON-RF', GET, **fields), names)
        emit(UBXMessage('NAV', 'NAV-STATUS', GET, iTOW=random.randrange(604800000), gpsFix=random.randrange(6),
            psmState=random.randrange(4), spoofDetState=random.randrange(4), carrSoln=random.randrange(3)),
            ["iTOW", "spoofDetState"])
        emit(UBXMessage('SEC', 'SEC-SIG', GET, version=1, jamDetEnabled=random.randrange(2), jammingState=random.randrange(4),
            spfDetEnabled=random.randrange(2), spoofingState=random.randrange(8)),
            ["version", "jamDetEnabled", "jammingState", "spfDetEnabled", "spoofingState"])
        count = random.randrange(5)
        fields = {"version": 2, "jamDetEnabled": random.randrange(2), "jammingState": random.randrange(4),
            "spfDetEnabled": random.randrange(2), "spoofingState": random.randrange(8), "jamNumCentFreqs": count}
        names = list(fields)
        for f in range(1, count + 1):
            fields[f"centFreq_{f:02d}"] = random.randrange(1 << 24)
            fields[f"jammed_{f:02d}"] = random.randrange(2)
            names += [f"centFreq_{f:02d}", f"jammed_{f:02d}"]
        emit(UBXMessage('SEC', 'SEC-SIG', GET, **fields), names)
    """

  static func samples() async throws -> [Sample] {
    let output = try await PythonModules.run(script, arguments: [])
    return try output.split(separator: "\n").map { try JSONDecoder().decode(Sample.self, from: Data($0.utf8)) }
  }

  @Test func pyubx2sIntegrityMessagesReadToTheValuesPyubx2ReadsBack() async throws {
    let samples = try await Self.samples()
    #expect(samples.count == 5000)
    var read = (hardware: 0, radio: 0, status: 0, security: 0)
    for sample in samples {
      let frame = try #require(sample.frame, "\(sample.hex) is one UBX frame")
      if let hardware = HardwareStatus(frame) {
        read.hardware += 1
        #expect(hardware.noisePerMillisecond == sample["noisePerMS"] && hardware.gainControl == sample["agcCnt"])
        #expect(hardware.antenna == AntennaStatus(rawValue: sample["aStatus"]) ?? .unknown, "\(sample.fields)")
        #expect(hardware.antennaPower == AntennaPower(rawValue: sample["aPower"]) ?? .unknown, "\(sample.fields)")
        #expect(hardware.jamming.rawValue == sample["jammingState"] && hardware.jammingIndicator == sample["jamInd"])
      } else if let radio = RadioStatus(frame) {
        read.radio += 1
        #expect(radio.blocks.count == sample["nBlocks"])
        for (index, block) in radio.blocks.enumerated() {
          func field(_ name: String) -> Int { sample[name + String(format: "_%02d", index + 1)] }
          #expect(block.id == field("blockId") && block.jamming.rawValue == field("jammingState"), "\(sample.fields)")
          #expect(block.antenna == AntennaStatus(rawValue: field("antStatus")) ?? .unknown, "\(sample.fields)")
          #expect(block.antennaPower == AntennaPower(rawValue: field("antPower")) ?? .unknown, "\(sample.fields)")
          #expect(block.noisePerMillisecond == field("noisePerMS") && block.gainControl == field("agcCnt"))
          #expect(block.jammingIndicator == field("jamInd"))
        }
      } else if let status = NavigationStatus(frame) {
        read.status += 1
        #expect(Int(status.timeOfWeek) == sample["iTOW"] && status.spoofing.rawValue == sample["spoofDetState"])
      } else if let security = SignalSecurity(frame) {
        read.security += 1
        #expect(security.jammingDetectionEnabled == (sample["jamDetEnabled"] == 1), "\(sample.fields)")
        #expect(security.jamming.rawValue == sample["jammingState"], "\(sample.fields)")
        #expect(security.spoofingDetectionEnabled == (sample["spfDetEnabled"] == 1), "\(sample.fields)")
        #expect(security.spoofing == SpoofingState(rawValue: sample["spoofingState"]) ?? .unknown, "\(sample.fields)")
        let expected = (0..<(sample.fields["jamNumCentFreqs"] ?? 0)).map { index in
          let suffix = String(format: "_%02d", index + 1)
          return SignalSecurity.Frequency(kilohertz: sample["centFreq" + suffix], isJammed: sample["jammed" + suffix] == 1)
        }
        #expect(security.frequencies == expected, "\(sample.fields)")
      } else {
        Issue.record("no reader took \(sample.hex)")
      }
    }
    #expect(read.hardware == 1000 && read.radio == 1000 && read.status == 1000 && read.security == 2000)
  }

  /// Random payloads of every length up to 200 bytes, under each message's class and id: a
  /// reader either reads one or says no, and what it reads stays within its fields' ranges.
  @Test(.offThePool) func randomPayloadsNeverCrashAReader() {
    var generator = SplitMix64(seed: 48)
    let messages: [(UInt8, UInt8)] = [(0x0A, 0x09), (0x0A, 0x38), (0x01, 0x03), (0x27, 0x09)]
    var read = 0
    for round in 0..<20_000 {
      let message = messages[round % messages.count]
      var payload = (0..<Int.random(in: 0...200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
      // A version byte SEC-SIG knows, and a count that agrees with the length, now and then.
      if message == (0x27, 0x09), !payload.isEmpty, round % 3 == 0 { payload[0] = UInt8(1 + round % 2) }
      if message == (0x0A, 0x38), payload.count >= 4, round % 3 == 0 { payload = Array(payload.prefix(4 + (payload.count - 4) / 24 * 24)) }
      if message == (0x0A, 0x38), payload.count >= 4, round % 3 == 0 { payload[1] = UInt8((payload.count - 4) / 24) }
      let frame = UBXFrame(messageClass: message.0, id: message.1, payload: payload)
      if let hardware = HardwareStatus(frame) {
        read += 1
        #expect((0...255).contains(hardware.jammingIndicator) && (0...65535).contains(hardware.gainControl))
      }
      if let radio = RadioStatus(frame) {
        read += 1
        #expect(radio.blocks.count == (payload.count - 4) / 24)
      }
      if NavigationStatus(frame) != nil { read += 1 }
      if let security = SignalSecurity(frame) {
        read += 1
        #expect(security.frequencies.allSatisfy { (0..<(1 << 24)).contains($0.kilohertz) })
      }
    }
    #expect(read > 1000, "some random payloads have a valid shape")
  }

  /// A frame shorter than its layout, or a count its length does not hold, reads as nothing:
  /// never as a state the receiver did not say.
  @Test func truncatedAndInconsistentFramesReadAsNothing() {
    func frame(_ message: (UInt8, UInt8), _ payload: [UInt8]) -> UBXFrame {
      UBXFrame(messageClass: message.0, id: message.1, payload: payload)
    }
    #expect(HardwareStatus(frame((0x0A, 0x09), [UInt8](repeating: 0, count: 59))) == nil)
    #expect(RadioStatus(frame((0x0A, 0x38), [0, 2, 0, 0] + [UInt8](repeating: 0, count: 24))) == nil)
    #expect(RadioStatus(frame((0x0A, 0x38), [0, 0, 0, 0]))?.blocks == [])
    #expect(NavigationStatus(frame((0x01, 0x03), [UInt8](repeating: 0, count: 15))) == nil)
    #expect(SignalSecurity(frame((0x27, 0x09), [1, 0, 0, 0, 0, 0, 0, 0])) == nil)
    #expect(SignalSecurity(frame((0x27, 0x09), [2, 0, 0, 3, 0, 0, 0, 0])) == nil)
    #expect(SignalSecurity(frame((0x27, 0x09), [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])) == nil)
    // Another message of the same length is not taken for one of these.
    #expect(HardwareStatus(frame((0x0A, 0x0A), [UInt8](repeating: 0, count: 60))) == nil)
  }
}
