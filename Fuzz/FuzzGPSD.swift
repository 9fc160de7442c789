// libFuzzer entry point: random bytes through gpsd's client side (line splitter, report
// decoding, range checks, fix assembly), in chunk sizes taken from the input itself. Built by
// Fuzz/run.sh, not by SwiftPM.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: start, count: count)
  guard let first = bytes.first else { return 0 }
  // The first byte picks the chunk size and whether NMEA lines pass through.
  let chunkSize = Int(first >> 1) + 1
  var decoder = GPSDStreamDecoder(passesNMEA: first & 1 == 1)
  var lines = 0
  var index = 1
  while index < count {
    let end = min(count, index + chunkSize)
    decoder.append(bytes[index..<end])
    while let output = decoder.next() {
      lines += 1
      if case .fix(let fix) = output {
        precondition(fix.latitude.map { abs($0) <= 90 } ?? true)
        precondition(fix.longitude.map { abs($0) <= 180 } ?? true)
        precondition(fix.altitude.map { Plausible.altitude.contains($0) } ?? true)
        precondition(fix.mode == .threeD || fix.altitude == nil)
      }
    }
    index = end
  }
  let counters = decoder.counters
  precondition(counters.reports + counters.malformed + counters.outOfRange <= count)
  return 0
}
