/// A streaming decoder as the verifier sees it: bytes in, outputs out, however the bytes
/// are split. Each decoder's test target says how its decoder fits.
public protocol VerifiableDecoder {
  associatedtype Output: Equatable
  /// What the decoder counted, compared at the end as the outputs are.
  associatedtype Summary: Equatable = Int
  mutating func append(_ bytes: ArraySlice<UInt8>)
  /// The next output, or `nil` when more bytes are needed.
  mutating func nextOutput() -> Output?
  /// Marks the end of input.
  mutating func finish()
  var summary: Summary { get }
  /// Bytes held for an output not yet complete.
  var bufferedByteCount: Int { get }
}

extension VerifiableDecoder where Summary == Int {
  public var summary: Int { 0 }
}

/// The one check every streaming decoder gets, after swift-nio's ByteToMessageDecoderVerifier:
/// the same input given all at once, a byte at a time, split in two at every index (every
/// `stride`th for long inputs), in random chunks (empty ones included), and as slices of a
/// larger buffer with junk before and after them, must give the same outputs and counts, with
/// nothing left over once the input has ended.
public enum DecoderVerifier {
  /// What decoding `input` in `chunks` gave.
  public struct Result<Decoder: VerifiableDecoder>: Equatable {
    public var outputs: [Decoder.Output]
    public var summary: Decoder.Summary
    public var leftOver: Int
  }

  public static func decode<Decoder: VerifiableDecoder>(
    _ make: () -> Decoder, _ input: [UInt8], chunks: [Range<Int>], padding: Int = 0
  ) -> Result<Decoder> {
    var decoder = make()
    // The input sits inside a larger buffer: a decoder that reads past its slice sees junk.
    let junk = [UInt8](repeating: UInt8(ascii: "#"), count: padding)
    let buffer = junk + input + junk
    var outputs: [Decoder.Output] = []
    for chunk in chunks {
      decoder.append(buffer[(chunk.lowerBound + padding)..<(chunk.upperBound + padding)])
      while let output = decoder.nextOutput() { outputs.append(output) }
    }
    decoder.finish()
    while let output = decoder.nextOutput() { outputs.append(output) }
    return Result(outputs: outputs, summary: decoder.summary, leftOver: decoder.bufferedByteCount)
  }

  /// Every way of splitting `input` the verifier tries, by name.
  public static func splits(of count: Int, stride: Int = 1, seed: UInt64 = 7) -> [(String, [Range<Int>])] {
    var splits: [(String, [Range<Int>])] = [("whole", [0..<count]), ("byte by byte", (0..<count).map { $0..<($0 + 1) })]
    for index in Swift.stride(from: 1, to: count, by: max(1, stride)) { splits.append(("split at \(index)", [0..<index, index..<count])) }
    var random = seed
    var start = 0
    var chunks: [Range<Int>] = []
    while start < count {
      // SplitMix64, inline: sizes 0 to 300, empty chunks included.
      random &+= 0x9E37_79B9_7F4A_7C15
      var z = random
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      let end = min(count, start + Int((z ^ (z >> 31)) % 301))
      chunks.append(start..<end)
      start = end
    }
    splits.append(("random chunks", chunks))
    return splits
  }

  /// The mismatches between decoding `input` whole and every other way, each named (empty
  /// when all agree), and what decoding it whole gave. `expected`, when given, must be what
  /// the whole input gives; nothing may be left over at the end.
  public static func verify<Decoder: VerifiableDecoder>(
    _ make: () -> Decoder, _ input: [UInt8], expected: [Decoder.Output]? = nil, stride: Int = 1
  ) -> (failures: [String], reference: Result<Decoder>) {
    let reference = decode(make, input, chunks: [0..<input.count])
    var failures: [String] = []
    if let expected, reference.outputs != expected {
      failures.append("whole: \(reference.outputs.count) outputs, not the \(expected.count) expected")
    }
    if reference.leftOver != 0 { failures.append("whole: \(reference.leftOver) bytes left over") }
    for (name, chunks) in splits(of: input.count, stride: stride) {
      for padding in name == "whole" ? [16] : [0] {
        let result = decode(make, input, chunks: chunks, padding: padding)
        if result != reference { failures.append("\(name)\(padding > 0 ? " inside junk" : ""): differs") }
      }
    }
    return (failures, reference)
  }
}
