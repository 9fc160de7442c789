import NMEA
import TestHelpers
import Testing

/// Each capture in `Fixtures/` decodes to the fixes its generator says the receiver reported,
/// however the bytes are cut up on the way in.
@Suite(.offThePool) struct GoldenFixtureTests {
  @Test(arguments: Fixtures.goldenNames)
  func captureDecodesToItsExpectedFixes(_ name: String) throws {
    let expected = try Fixtures.expectedFixes(name)
    let actual = decodeFixes(try Fixtures.capture(name))
    #expect(actual.count == expected.count)
    for (index, (fix, want)) in zip(actual, expected).enumerated() {
      let problems = differences(fix, want)
      #expect(problems.isEmpty, "epoch \(index) at \(want.time):\n\(problems.joined(separator: "\n"))")
      if !problems.isEmpty { break }
    }
  }

  @Test(arguments: Fixtures.goldenNames)
  func captureDecodesTheSameByteByByteAndInRandomChunks(_ name: String) throws {
    let bytes = try Fixtures.capture(name)
    let whole = decodeFixes(bytes)
    #expect(decodeFixes(bytes, chunks: Chunking.bytes(bytes.count)) == whole)
    for seed in 10...12 as ClosedRange<UInt64> {
      #expect(decodeFixes(bytes, chunks: Chunking.random(bytes.count, seed: seed)) == whole, "seed \(seed)")
    }
  }

  @Test(arguments: Fixtures.goldenNames)
  func captureDecodesTheSameSplitAtManyIndices(_ name: String) throws {
    let bytes = try Fixtures.capture(name)
    let whole = decodeFixes(bytes)
    for index in stride(from: 0, through: bytes.count, by: max(1, bytes.count / 150)) {
      #expect(decodeFixes(bytes, chunks: Chunking.split(bytes.count, at: index)) == whole, "split at \(index)")
    }
  }
}
