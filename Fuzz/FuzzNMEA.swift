// libFuzzer entry point: random bytes through the Framer, every decoder, and the assembler,
// in random chunk sizes taken from the input itself. Built by Fuzz/run.sh, not by SwiftPM.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: start, count: count)
  guard let first = bytes.first else { return 0 }
  // The first byte picks the chunk size, so splits are explored too.
  let chunkSize = Int(first) + 1
  var decoder = FixDecoder(options: .init(acceptsMissingChecksum: first & 1 == 1))
  var framer = Framer(options: .init(acceptsMissingChecksum: true))
  var index = 1
  while index < count {
    let end = min(count, index + chunkSize)
    let chunk = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[index..<end])
    decoder.append(chunk)
    while let fix = decoder.next() { precondition(fix.latitude.map { abs($0) <= 90 } ?? true) }
    framer.append(chunk)
    while let sentence = framer.next() {
      precondition(sentence.bytes.count <= Framer.maximumSentenceLength)
      _ = try? Message(sentence)
      _ = try? GGA(sentence)
      _ = try? RMC(sentence)
      _ = try? GSA(sentence)
      _ = try? GSV(sentence)
      _ = try? VTG(sentence)
      _ = try? GLL(sentence)
      _ = try? ZDA(sentence)
      _ = try? GNS(sentence)
      _ = try? GST(sentence)
      _ = try? HDT(sentence)
      _ = try? THS(sentence)
      _ = try? TXT(sentence)
    }
    precondition(framer.bufferedByteCount <= Framer.maximumSentenceLength + chunkSize)
    index = end
  }
  decoder.finish()
  while decoder.next() != nil {}
  return 0
}
