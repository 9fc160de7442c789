import Dispatch
import GPSD
import Plumbing

/// One connected gpsd client: its connection, what it asked to watch, its half-read requests.
/// Lives on the server's queue.
final class Client: @unchecked Sendable {
  let id: Int
  let connection: SocketConnection
  var watch = GPSDWatch()
  var requests = GPSDRequestReader()
  /// When the client last completed a request (or connected): only complete requests count,
  /// so a client that dribbles bytes is not kept alive by them.
  var lastHeard = ContinuousClock.now
  /// Since when bytes of a request not yet complete have been waiting.
  var incompleteSince: ContinuousClock.Instant?
  /// Since when the client has been on its way out: told why, its writing side shut, its
  /// last bytes read and dropped, so that it reads the farewell rather than a reset.
  var leavingSince: ContinuousClock.Instant?

  init(id: Int, socket: FileDescriptor, queue: DispatchQueue, buffer: ReadBuffer) {
    self.id = id
    connection = SocketConnection(socket: socket, queue: queue, buffer: buffer)
  }

  func start(
    onBytes: @escaping (UnsafeRawBufferPointer) -> Void, onWritable: @escaping () -> Void, onClosed: @escaping () -> Void
  ) {
    connection.start(onBytes: onBytes, onWritable: onWritable, onClosed: onClosed)
  }

  func queue(_ bytes: [UInt8], limit: Int) -> Bool { connection.queue(bytes, limit: limit) }
  func flush() -> Bool { connection.flush() }
  func shutDownSending() { connection.shutDownSending() }
  func close() { connection.close() }
}
