import MallocCounter
import NMEA
import NMEASimulation
import Testing

/// The hot path allocates nothing per sentence: framing, decoding and epoch assembly reuse their
/// storage. Each fix is one allocation, its box (``Fix`` is copy-on-write, so that it passes
/// through the pipeline's layers by reference count rather than copied whole at each). Counted
/// with the package's malloc counter, on this thread only, around the work done per sentence
/// (`next()`). Appending a chunk is left out: in a debug build the standard
/// library's generic `append(contentsOf:)` allocates once per chunk (a release build does not:
/// see `nmea-benchmark`), which is per read, not per sentence.
@Suite struct AllocationTests {
  /// Decodes `bytes` in 4 KiB chunks; returns the fixes and the allocations made by `next()`.
  static func decodeAll(_ bytes: [UInt8], into decoder: inout FixDecoder) -> (fixes: Int, allocations: UInt64) {
    var fixes = 0
    var allocations: UInt64 = 0
    bytes.withUnsafeBytes { raw in
      var start = 0
      while start < raw.count {
        let end = min(raw.count, start + 4096)
        decoder.append(UnsafeRawBufferPointer(start: raw.baseAddress! + start, count: end - start))
        let before = mallocCounterThreadAllocations()
        while decoder.next() != nil { fixes += 1 }
        allocations += mallocCounterThreadAllocations() - before
        start = end
      }
    }
    return (fixes, allocations)
  }

  @Test(.enabled(if: mallocCounterIsActive() != 0, "a sanitizer's allocator replaces the counter"), arguments: [true, false])
  func decodingAllocatesNothingPerSentenceAndOneBoxPerFix(keepsSatellites: Bool) throws {
    let bytes = try Fixtures.capture("quectel-nmea411-10hz") + Simulation.demoDrive.capture()
    var decoder = FixDecoder(keepsSatellites: keepsSatellites)
    // A first pass sizes every buffer; the second, over the same bytes again, must reuse them.
    _ = Self.decodeAll(bytes, into: &decoder)
    let (fixes, allocations) = Self.decodeAll(bytes, into: &decoder)
    #expect(fixes > 300)
    #expect(
      allocations == UInt64(fixes), "\(allocations) allocations for \(fixes) fixes of \(decoder.framer.counters.sentences / 2) sentences")
  }
}
