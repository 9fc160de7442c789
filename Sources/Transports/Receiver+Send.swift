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
    if case .failure(let error) = outlet.send(Array(bytes)) { throw error }
  }

  /// Sets the serial port to `bitsPerSecond` once everything sent so far has been written, as
  /// a receiver just told to change its speed needs: the port's autobaud then keeps the new
  /// speed instead of searching, and listeners hear it as a line speed. Returns, once the port
  /// has changed, the speed it had before (where the receiver was heard until now).
  /// - Throws: ``SendError/notConnected`` when no serial session is open (or the source is no
  ///   serial port); the speed is then unchanged.
  @discardableResult
  public func changeLineSpeed(to bitsPerSecond: Int) async throws(SendError) -> Int {
    guard let change = outlet?.changeLineSpeed else { throw .notConnected }
    let result = await withCheckedContinuation { continuation in change(bitsPerSecond) { continuation.resume(returning: $0) } }
    return try result.get()
  }
}
