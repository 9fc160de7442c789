import Dispatch
import Foundation
import Testing

@testable import Plumbing

/// A served socket's output: kept while the peer does not take it, bounded, and, when the
/// server is done with the peer, all of it sent before the end.
struct SocketConnectionTests {
  /// A connected pair of stream sockets, the server's end non-blocking with a small send buffer.
  static func pair() -> (server: FileDescriptor, peer: CInt) {
    var descriptors: [CInt] = [0, 0]
    _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors)
    var small: CInt = 4096
    setsockopt(descriptors[0], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<CInt>.size))
    _ = fcntl(descriptors[0], F_SETFL, fcntl(descriptors[0], F_GETFL) | O_NONBLOCK)
    return (FileDescriptor(rawValue: descriptors[0]), descriptors[1])
  }

  @Test func whatIsQueuedIsAllSentBeforeTheEndThatFollowsIt() async {
    let (server, peer) = Self.pair()
    defer { close(peer) }
    let queue = DispatchQueue(label: "test")
    let connection = SocketConnection(socket: server, queue: queue, buffer: ReadBuffer())
    let answer = [UInt8]((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
    queue.sync {
      connection.start(onBytes: { _ in }, onWritable: { _ = connection.flush() }, onClosed: {})
      #expect(connection.queue(answer, limit: 1 << 20))
      _ = connection.flush()
      // The socket holds a few kilobytes: most of the answer is still queued here.
      #expect(connection.unsentByteCount > 200_000)
      connection.shutDownSending()
    }
    // The peer reads everything, then the end.
    // (Read on a thread of its own: blocking reads do not belong on the test runner's pool.)
    let received = await withCheckedContinuation { continuation in
      detachThread {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
          let count = buffer.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, 0) }
          if count <= 0 { break }
          received += buffer[0..<count]
        }
        continuation.resume(returning: received)
      }
    }
    #expect(received == answer)
    queue.sync { connection.close() }
  }

  @Test func aPeerThatTakesNothingIsFoundOutByTheLimit() {
    let (server, peer) = Self.pair()
    defer { close(peer) }
    let queue = DispatchQueue(label: "test")
    let connection = SocketConnection(socket: server, queue: queue, buffer: ReadBuffer())
    queue.sync {
      connection.start(onBytes: { _ in }, onWritable: {}, onClosed: {})
      let chunk = [UInt8](repeating: 0x41, count: 16_384)
      var accepted = 0
      while connection.queue(chunk, limit: 65_536), accepted < 100 { accepted += 1 }
      #expect(accepted < 100)
      #expect(connection.unsentByteCount <= 65_536)
      connection.close()
    }
  }
}
