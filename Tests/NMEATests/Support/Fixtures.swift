import Foundation
import NMEA
import NMEASimulation

/// The captures in `Fixtures/` and their expected fixes.
enum Fixtures {
  static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

  /// Every capture that has an `.expected.jsonl` beside it.
  static let goldenNames: [String] = {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return files.filter { $0.hasSuffix(".expected.jsonl") }
      .map { String($0.dropLast(".expected.jsonl".count)) }
      .filter { files.contains($0 + ".nmea") }
      .sorted()
  }()

  static func capture(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: directory.appendingPathComponent(name + ".nmea")))
  }

  static func expectedFixes(_ name: String) throws -> [Fix] {
    let text = try String(contentsOf: directory.appendingPathComponent(name + ".expected.jsonl"), encoding: .utf8)
    let decoder = JSONDecoder()
    return try text.split(separator: "\n").map { try decoder.decode(Fix.self, from: Data($0.utf8)) }
  }
}

/// Decodes `bytes` fed in the given chunks, returning every fix.
func decodeFixes(_ bytes: [UInt8], chunks: [Range<Int>]? = nil, date: UTCDate? = nil) -> [Fix] {
  var decoder = FixDecoder(defaultDate: date)
  var fixes: [Fix] = []
  for range in chunks ?? [0..<bytes.count] {
    decoder.append(bytes[range])
    while let fix = decoder.next() { fixes.append(fix) }
  }
  decoder.finish()
  while let fix = decoder.next() { fixes.append(fix) }
  return fixes
}

/// Frames `bytes` fed in the given chunks, returning every sentence's text and the counters.
func frame(_ bytes: [UInt8], chunks: [Range<Int>], options: Framer.Options = .init()) -> (
  sentences: [String], counters: Framer.Counters, date: UTCDate?
) {
  var framer = Framer(options: options)
  var sentences: [String] = []
  for range in chunks {
    framer.append(bytes[range])
    while let sentence = framer.next() { sentences.append(sentence.description) }
  }
  framer.finish()
  while let sentence = framer.next() { sentences.append(sentence.description) }
  return (sentences, framer.counters, framer.captureDate)
}

/// Ways to cut a stream into chunks.
enum Chunking {
  static func whole(_ count: Int) -> [Range<Int>] { [0..<count] }
  static func bytes(_ count: Int) -> [Range<Int>] { (0..<count).map { $0..<($0 + 1) } }
  static func split(_ count: Int, at index: Int) -> [Range<Int>] { [0..<index, index..<count] }
  /// Random sizes from 0 to 300, empty chunks included, from a fixed seed.
  static func random(_ count: Int, seed: UInt64) -> [Range<Int>] {
    var generator = SplitMix64(seed: seed)
    var ranges: [Range<Int>] = []
    var start = 0
    while start < count {
      let size = Int(generator.next() % 301)
      let end = min(count, start + size)
      ranges.append(start..<end)
      start = end
    }
    return ranges
  }
}

/// `body` as a sentence, checksum and CRLF added by the simulator's writer (another line end
/// when a test needs one).
func nmea(_ body: String, terminator: String = "\r\n") -> String {
  let line = NMEAWriter.line(body)
  return terminator == "\r\n" ? line : String(decoding: line.utf8.dropLast(2), as: UTF8.self) + terminator
}
