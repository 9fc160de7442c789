/// Splits gpsd's byte stream into lines, with a bound: gpsd's reports are at most 10,240
/// characters (its `GPS_JSON_RESPONSE_MAX`), so a longer line is a truncated fragment or
/// garbage and is dropped and counted, and memory stays bounded whatever arrives.
package struct LineSplitter: Sendable {
  /// gpsd's own limit on a report's length.
  package static let maximumLineLength = 10_240

  package private(set) var overlongLines = 0
  var storage: [UInt8] = []
  var start = 0
  var scanned = 0
  var discarding = false

  package init() {}

  /// Bytes of a line not yet complete.
  package var bufferedByteCount: Int { storage.count - start }

  package mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
    if start > 0, start >= storage.count / 2 {
      storage.removeSubrange(0..<start)
      scanned -= start
      start = 0
    }
    storage.append(contentsOf: bytes)
  }

  /// The next complete line without its terminator, or `nil` when more bytes are needed.
  package mutating func next() -> ArraySlice<UInt8>? {
    while scanned < storage.count {
      if storage[scanned] == 0x0A {
        let line = storage[start..<scanned]
        scanned += 1
        start = scanned
        if discarding {
          discarding = false
          continue
        }
        return line.last == 0x0D ? line.dropLast() : line
      }
      scanned += 1
      if !discarding, scanned - start > Self.maximumLineLength {
        overlongLines += 1
        discarding = true
      }
      if discarding {
        start = scanned
      }
    }
    return nil
  }
}
