extension Receiver {
  /// Why ``send(_:)`` did not take the bytes.
  public enum SendError: Error, Hashable, Sendable {
    /// No session can write now: the device is not open (not plugged in, between replugs,
    /// not yet started), or the source cannot write at all (a replay, gpsd).
    case notConnected
    /// The bytes would make more than 64 KiB wait to be written: the receiver takes them
    /// slower than they are sent. Nothing of them was queued; send again later.
    case full
  }

  /// Queues `bytes` for the receiver (a configuration command, RTK corrections), written in
  /// order on the receiver's own queue between its reads, so the reader is never blocked and
  /// never races the writer. Returns at once; the bytes go out as fast as the line takes
  /// them. Whole or not at all: a send that fails queued nothing.
  public func send(_ bytes: some Sequence<UInt8>) throws(SendError) {
    guard let outlet else { throw .notConnected }
    if case .failure(let error) = outlet(Array(bytes)) { throw error }
  }
}
